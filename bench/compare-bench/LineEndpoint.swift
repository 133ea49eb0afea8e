import Glibc
import SystemCalls

/// Line exchanges over one descriptor (a pty slave or a Unix socket): writes whole buffers,
/// reads into a buffer that hands out complete lines. Every blocking wait is a `poll` bounded
/// at five seconds, so a lost reply ends the benchmark instead of hanging it.
///
/// Threading: main thread.
final class LineEndpoint {
    private var owner: OwnedFD?
    let fd: CInt
    private var chunk = [UInt8](repeating: 0, count: 65_536)
    private var pending: [UInt8] = []
    /// Where the unread part of `pending` starts (consumed bytes are dropped in bulk, not per line).
    private var start = 0
    /// Set for an RFC 2217 connection: telnet commands are taken out of what is read.
    var telnet: TelnetDecoder?

    /// Takes `descriptor` and makes it non-blocking (a pty slave opened by path is not).
    init(owning descriptor: consuming OwnedFD) throws {
        fd = descriptor.rawValue
        owner = consume descriptor
        try FileIO.setNonBlocking(fd)
    }

    func close() { owner = nil }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        // Bounded as a whole: poll may report readiness (an error, a hang-up) that write never honours.
        let deadline = Clock.nanoseconds() + 5_000_000_000
        while offset < bytes.count {
            if Clock.nanoseconds() > deadline { throw BenchError("could not write for 5 s on fd \(fd)") }
            let result = try bytes.withUnsafeBytes { buffer in
                try FileIO.write(fd, from: UnsafeRawBufferPointer(rebasing: buffer[offset...]))
            }
            switch result {
            case .processed(let count): offset += count
            case .wouldBlock: try wait(Int16(POLLOUT))
            }
        }
    }

    /// Writes what the descriptor takes now without waiting; returns how many bytes it took.
    func sendSome(_ bytes: ArraySlice<UInt8>) throws -> Int {
        let result = try bytes.withUnsafeBytes { try FileIO.write(fd, from: $0) }
        if case .processed(let count) = result { return count }
        return 0
    }

    /// The next buffered line without its newline, or `nil` when no whole line is buffered.
    func bufferedLine() -> ArraySlice<UInt8>? {
        guard let newline = pending[start...].firstIndex(of: 0x0A) else {
            if start > 0 {
                pending.removeSubrange(..<start)
                start = 0
            }
            return nil
        }
        let line = pending[start..<newline]
        start = newline + 1
        return line
    }

    /// One `read` of whatever is there (call after `poll` said so); false at end of file.
    func readAvailable() throws -> Bool {
        let result = try chunk.withUnsafeMutableBytes { try FileIO.read(fd, into: $0) }
        switch result {
        case .processed(0): return false
        case .processed(let count):
            if telnet == nil { pending += chunk[..<count] } else { pending += telnet!.feed(chunk[..<count]) }
        case .wouldBlock: break
        }
        return true
    }

    /// The next line, without its newline, waiting for it.
    func readLine() throws -> ArraySlice<UInt8> {
        while true {
            if let line = bufferedLine() { return line }
            try wait(Int16(POLLIN))
            if try !readAvailable() { throw BenchError("the other end closed the connection") }
        }
    }

    private func wait(_ events: Int16) throws {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        if Glibc.poll(&entry, 1, 5_000) == 0 { throw BenchError("no progress for 5 s on fd \(fd)") }
    }
}
