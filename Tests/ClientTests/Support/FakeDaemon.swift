import Glibc
import IOLoop
import JSONCodec
import SystemCalls

@testable import ControlProtocol

/// A stand-in for accessoryd: a Unix socket listening in a temporary folder, served by an IOLoop
/// thread of its own. Each request line is decoded and handed to the test's script, which
/// answers (now, later, out of order, or never), sends notifications, or hangs up. Lines that are
/// not valid requests get the protocol's error response, as the daemon would send.
///
/// Threading: create and ``stop()`` on the test's thread; the script runs on the fake's loop
/// thread; ``requests`` and ``FakePeer`` methods from any thread.
final class FakeDaemon: Sendable {
    /// Called on the fake's loop thread for every request that decodes.
    typealias Script = @Sendable (Request, FakePeer) -> Void

    let folder: TestFolder
    let socketPath: String
    let loop: IOLoop
    private let received = Locked<[Request]>([])
    private let connections = Locked(0)

    init(script: @escaping Script) throws {
        let folder = try TestFolder()
        self.folder = folder
        socketPath = folder.file("accessoryd.sock")
        loop = try IOLoop.spawn(name: "fake-daemon")
        let listener = try Socket.socket(domain: AF_UNIX, type: CInt(SOCK_STREAM.rawValue))
        try Socket.bind(listener.rawValue, .path(socketPath))
        try Socket.listen(listener.rawValue)
        let raw = listener.release()
        let (loop, received, connections) = (self.loop, self.received, self.connections)
        loop.perform {
            _ = try? loop.addSource(owning: OwnedFD(adopting: raw), interest: .readable) { _ in
                while let accepted = try? Socket.accept(raw) {
                    connections.withLock { $0 += 1 }
                    FakePeer.start(accepted.release(), on: loop) { request, peer in
                        received.withLock { $0.append(request) }
                        script(request, peer)
                    }
                }
            }
        }
    }

    /// Every request received so far, in arrival order.
    var requests: [Request] { received.withLock { $0 } }

    /// How many connections were accepted.
    var connectionCount: Int { connections.withLock { $0 } }

    /// Closes every socket, stops the thread, and removes the folder.
    func stop() {
        loop.shutdown()
        folder.remove()
    }
}

/// One accepted connection of the ``FakeDaemon``.
///
/// Threading: the public methods are safe from any thread (they hop to the loop); the stored
/// state is touched only on the loop thread.
final class FakePeer: @unchecked Sendable {  // @unchecked: the mutable state is touched only on `loop`'s thread.
    private let loop: IOLoop
    private let onRequest: (Request, FakePeer) -> Void
    private var source: FDSource?
    private var pending: [UInt8] = []
    private var splitBuffer: [UInt8] = []

    private init(loop: IOLoop, onRequest: @escaping (Request, FakePeer) -> Void) {
        self.loop = loop
        self.onRequest = onRequest
    }

    /// Starts serving the accepted socket `fd`. Loop thread only.
    static func start(_ fd: CInt, on loop: IOLoop, onRequest: @escaping (Request, FakePeer) -> Void) {
        let peer = FakePeer(loop: loop, onRequest: onRequest)
        peer.source = try? loop.addSource(owning: OwnedFD(adopting: fd), interest: .readable) { events in
            peer.handle(events)
        }
    }

    /// Sends a success response.
    func reply(_ id: RequestID, _ result: some JSONEncodable) {
        var line: [UInt8] = []
        ResponseEncoder.success(id: id, result: result, into: &line)
        send(line)
    }

    /// Sends an error response.
    func fail(_ id: RequestID?, _ error: RPCError) {
        var line: [UInt8] = []
        ResponseEncoder.failure(id: id, error: error, into: &line)
        send(line)
    }

    /// Sends a `device.data` notification.
    func notifyData(_ device: String, _ bytes: [UInt8]) {
        var line: [UInt8] = []
        ResponseEncoder.deviceData(device: device, frame: bytes, into: &line)
        send(line)
    }

    /// Sends a `device.state` notification.
    func notifyState(_ device: String, _ state: DeviceState, _ reason: String) {
        var line: [UInt8] = []
        ResponseEncoder.deviceState(device: device, state: state, reason: reason, into: &line)
        send(line)
    }

    /// Sends raw bytes.
    func send(_ bytes: [UInt8]) {
        loop.execute { [self] in
            pending.append(contentsOf: bytes)
            flush()
        }
    }

    /// Sends raw bytes after `delay`.
    func send(_ bytes: [UInt8], after delay: Duration) {
        loop.execute { [self] in
            loop.scheduleTimer(after: delay) { self.send(bytes) }
        }
    }

    /// Hangs up.
    func close() {
        loop.execute { [self] in
            source?.cancel()
            source = nil
        }
    }

    private func flush() {
        guard let source else { return }
        while !pending.isEmpty {
            let result = try? pending.withUnsafeBytes { try Socket.send(source.fd, from: $0) }
            switch result {
            case .processed(let count)?: pending.removeFirst(count)
            case .wouldBlock?:
                source.setInterest([.readable, .writable])
                return
            case nil:
                close()
                return
            }
        }
        source.setInterest(.readable)
    }

    private func handle(_ events: FDEvents) {
        if events.contains(.writable) { flush() }
        guard !events.isDisjoint(with: [.readable, .hangup, .error]), let source else { return }
        let bytes: [UInt8]
        do {
            guard let read = try FileIO.read(source.fd, max: 65_536) else { return }
            bytes = read
        } catch {
            return close()
        }
        if bytes.isEmpty { return close() }
        splitBuffer.append(contentsOf: bytes)
        while let newline = splitBuffer.firstIndex(of: UInt8(ascii: "\n")) {
            let line = Array(splitBuffer[..<newline])
            splitBuffer.removeSubrange(...newline)
            do throws(RequestRejection) {
                onRequest(try Request.decode(line), self)
            } catch {
                send(error.responseLine)
            }
        }
    }
}
