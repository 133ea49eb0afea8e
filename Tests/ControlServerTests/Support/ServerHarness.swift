import AccessoryTestSupport
import ControlProtocol
import ControlServer
import Glibc
import IOLoop
import SystemCalls

/// Collects log lines. Any thread.
final class LogRecorder: Sendable {
    let lines = Shared<[(ControlServerLogger.Level, String)]>([])

    var logger: ControlServerLogger {
        ControlServerLogger { [lines] level, message in lines.mutate { $0.append((level, message)) } }
    }

    func contains(_ level: ControlServerLogger.Level, _ fragment: String) -> Bool {
        lines.value.contains { $0.0 == level && $0.1.contains(fragment) }
    }
}

/// A temporary folder for socket files; removed (with what is in it) at the end.
struct TemporaryDirectory {
    let path: String

    init(mode: UInt32? = nil) throws {
        path = try FileIO.makeTemporaryDirectory(prefix: "/tmp/ctlsrv-")
        if let mode { try FileIO.changeMode(path, to: mode) }
    }

    func file(_ name: String) -> String { path + "/" + name }

    /// Removes the folder's entries (no subfolders are made by the tests but one level) and it.
    func remove() {
        guard let dir = opendir(path) else { return }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            let full = file(name)
            if (try? FileIO.status(ofPath: full))??.kind == .directory {
                try? FileIO.removeDirectory(full)
            } else {
                try? FileIO.unlink(full)
            }
        }
        closedir(dir)
        try? FileIO.removeDirectory(path)
    }
}

/// A control server on its own loop with a socket in a temporary folder, and its clean-up.
///
/// Threading: the test's thread.
final class ServerHarness {
    let directory: TemporaryDirectory
    let path: String
    let loop: IOLoop
    let server: ControlServer
    let handler: TestHandler
    let logs = LogRecorder()
    let listeningFD: CInt

    init(
        limits: ControlServerLimits = ControlServerLimits(),
        handler: TestHandler = TestHandler(),
        directoryMode: UInt32? = nil,
        socketMode: UInt32 = 0o660
    ) throws {
        directory = try TemporaryDirectory(mode: directoryMode)
        path = directory.file("accessoryd.sock")
        self.handler = handler
        let socket = try ListeningSocket(path: path, mode: socketMode)
        listeningFD = socket.fd
        loop = try IOLoop.spawn(name: "ctl-test")
        server = ControlServer(loop: loop, socket: socket, limits: limits, handler: handler, logger: logs.logger)
        server.start()
    }

    func client() throws -> TestClient { try TestClient(path: path) }

    /// Shuts the server down (bounded wait); returns whether it finished in time.
    @discardableResult
    func shutdownServer(flushTimeout: Duration = .milliseconds(200), seconds: Double = 5) -> Bool {
        let done = Shared(false)
        server.beginShutdown(flushTimeout: flushTimeout) { done.mutate { $0 = true } }
        return Wait.until(seconds: seconds) { done.value }
    }

    func tearDown() {
        shutdownServer()
        loop.shutdown()
        directory.remove()
    }
}

/// Runs `body` with a fresh server, always cleaning up.
func withServer<R>(
    limits: ControlServerLimits = ControlServerLimits(),
    handler: TestHandler = TestHandler(),
    directoryMode: UInt32? = nil,
    socketMode: UInt32 = 0o660,
    _ body: (ServerHarness) throws -> R
) throws -> R {
    let harness = try ServerHarness(
        limits: limits,
        handler: handler,
        directoryMode: directoryMode,
        socketMode: socketMode
    )
    defer { harness.tearDown() }
    return try body(harness)
}

/// A second loop standing in for the device loop (replies from another thread). Shut down by the
/// caller.
func withWorkerLoop<R>(_ body: (IOLoop) throws -> R) throws -> R {
    let worker = try IOLoop.spawn(name: "ctl-worker")
    defer { worker.shutdown() }
    return try body(worker)
}

/// `{"jsonrpc":"2.0","id":<id>,"method":"devices.list"}`
func listRequest(id: Int) -> String { "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"devices.list\"}" }
