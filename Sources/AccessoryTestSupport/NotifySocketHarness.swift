import Glibc
import SystemCalls

/// A test's stand-in for the service manager's notification socket: a Unix datagram socket bound
/// at a fresh path under /tmp or at a fresh abstract name, with `SO_PASSCRED` on so that each
/// message carries its sender's pid. Point a process's `NOTIFY_SOCKET` at ``notifySocket``.
///
/// Threading: the test's thread (one reader). Closed (and its file removed) by ``close()`` or
/// when dropped.
package final class NotifySocketHarness {
    /// One notification as received.
    package struct Message: Sendable, Equatable {
        /// The assignments in order, e.g. `[("READY", "1"), ("STATUS", "…")]`.
        package let fields: [Field]
        package let senderPID: pid_t?
        /// When it arrived (``MonotonicNow`` seconds).
        package let arrival: Double
        /// Descriptors sent with it (`FDSTORE=1`): the harness owns them until ``takeDescriptors()``
        /// or its close.
        package var descriptors: [CInt] = []

        package struct Field: Sendable, Equatable {
            package let name: String
            package let value: String
        }

        /// The value of the first `name=` assignment, if any.
        package func value(_ name: String) -> String? { fields.first { $0.name == name }?.value }
    }

    /// The value for `NOTIFY_SOCKET`: the path, or `@name`.
    package let notifySocket: String
    private var socket: OwnedFD?
    private let directory: String?
    /// Every message received so far, in order.
    package private(set) var messages: [Message] = []

    /// Binds a fresh socket: at `<new temporary folder>/notify` unless `abstract`, then at the
    /// abstract name `accessoryd-test-<pid>-<n>`.
    package init(abstract: Bool) throws {
        let fd = try Socket.unixDatagram()
        if abstract {
            let n = NotifySocketHarness.counter.withLock { count -> Int in
                count += 1
                return count
            }
            let name = "accessoryd-test-\(getpid())-\(n)"
            try Socket.bind(fd.rawValue, .abstract(name))
            notifySocket = "@" + name
            directory = nil
        } else {
            let folder = try FileIO.makeTemporaryDirectory(prefix: "/tmp/accessoryd-notify-")
            do {
                try Socket.bind(fd.rawValue, .path(folder + "/notify"))
            } catch {
                try? FileIO.removeDirectory(folder)
                throw error
            }
            notifySocket = folder + "/notify"
            directory = folder
        }
        try Socket.setOption(fd.rawValue, level: SOL_SOCKET, name: SO_PASSCRED, value: 1)
        socket = consume fd
    }

    private static let counter = Locked(0)

    deinit { close() }

    /// The descriptors every message brought, with their `FDNAME`, in order; the caller owns them
    /// from now on (the harness forgets them).
    package func takeDescriptors() -> [(name: String, fd: CInt)] {
        var taken: [(name: String, fd: CInt)] = []
        for i in messages.indices {
            for fd in messages[i].descriptors { taken.append((messages[i].value("FDNAME") ?? "unknown", fd)) }
            messages[i].descriptors = []
        }
        return taken
    }

    /// Closes the socket, and the descriptors no one took, and removes its file and folder.
    /// Idempotent.
    package func close() {
        for (_, fd) in takeDescriptors() { Glibc.close(fd) }
        socket = nil
        if let directory {
            unlink(directory + "/notify")
            try? FileIO.removeDirectory(directory)
        }
    }

    /// Reads what has arrived, waiting up to `seconds` for at least one message. Returns the new
    /// messages (also appended to ``messages``).
    @discardableResult
    package func receive(seconds: Double) throws -> [Message] {
        guard let fd = socket?.rawValue else { return [] }
        let deadline = MonotonicNow.seconds() + seconds
        var fresh: [Message] = []
        while true {
            while case .processed(let d) = try Socket.receiveWithDescriptors(fd, max: 4096) {
                fresh.append(
                    Message(
                        fields: NotifySocketHarness.parse(d.bytes),
                        senderPID: d.senderPID,
                        arrival: MonotonicNow.seconds(),
                        descriptors: d.descriptors
                    )
                )
            }
            let remaining = deadline - MonotonicNow.seconds()
            if !fresh.isEmpty || remaining <= 0 { break }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, CInt(max(1, (remaining * 1000).rounded(.up))))
        }
        messages += fresh
        return fresh
    }

    /// Reads until a message has a `name=value` assignment (bounded by `seconds`); returns it, or
    /// nil if none came in time. Every message read is kept in ``messages``.
    package func waitFor(_ name: String, _ value: String? = nil, seconds: Double) throws -> Message? {
        let matches = { (m: Message) in m.fields.contains { $0.name == name && (value == nil || $0.value == value) } }
        if let m = messages.first(where: matches) { return m }
        let deadline = MonotonicNow.seconds() + seconds
        while MonotonicNow.seconds() < deadline {
            if let m = try receive(seconds: deadline - MonotonicNow.seconds()).first(where: matches) { return m }
        }
        return nil
    }

    /// Splits a datagram into its `NAME=value` lines (lines without `=` are skipped).
    package static func parse(_ bytes: [UInt8]) -> [Message.Field] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line -> Message.Field? in
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { return nil }
            return Message.Field(name: String(parts[0]), value: String(parts[1]))
        }
    }
}
