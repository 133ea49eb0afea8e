import AccessoryTestSupport
import ControlServer
import IOLoop
import Testing

/// A control server whose timers (linger, shutdown flush, accept pause) run on virtual time: the
/// server is on a loop the test runs on its own thread (``spin(_:seconds:until:)``), its timers
/// on an embedded loop the test advances. One client is connected, with its connection at hand.
///
/// Threading: the test's thread.
final class VirtualTimeServer {
    let directory: TemporaryDirectory
    let loop: IOLoop
    let clock = EmbeddedLoop()
    let handler: TestHandler
    let server: ControlServer
    let client: TestClient
    let connection: ClientConnection

    /// `limits` default to the server's, without the first-request timeout (its timer would
    /// be the clock's first; tests of it set it).
    init(
        limits: ControlServerLimits = ControlServerLimits(idleConnectionTimeout: nil),
        handler: TestHandler = TestHandler(TestHandler.hold)
    ) throws {
        self.handler = handler
        directory = try TemporaryDirectory()
        let path = directory.file("accessoryd.sock")
        let socket = try ListeningSocket(path: path, mode: 0o600)
        loop = try IOLoop.forCurrentThread()
        server = ControlServer(loop: loop, socket: socket, limits: limits, handler: handler, scheduler: clock)
        server.start()
        client = try TestClient(path: path)
        #expect(spin(loop) { !handler.connections.value.isEmpty })
        connection = try #require(handler.connections.value.first)
    }

    /// Sends the client a line larger than a socket's buffer, which it never reads, and runs the
    /// loop until the socket has taken what it can: the rest stays queued.
    func stickOutput() {
        let line = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20) + [UInt8(ascii: "\n")]
        connection.send(line: line)
        let connection = connection
        #expect(spin(loop) { (1..<line.count).contains(connection.outboundBytes) })
    }

    /// Runs the loop until one of the server's timers is set on the clock.
    func runUntilTimerSet() {
        let clock = clock
        #expect(spin(loop) { clock.nextTimerDeadline != nil })
    }

    /// Starts a shutdown with `flushTimeout`; the flag says when it is done.
    func beginShutdown(flushTimeout: Duration) -> Shared<Bool> {
        let stopped = Shared(false)
        server.beginShutdown(flushTimeout: flushTimeout) { stopped.mutate { $0 = true } }
        return stopped
    }

    /// Why the connections closed, in order.
    var closeReasons: [CloseReason?] { handler.closed.value.map(\.reason) }

    /// Shuts the server down (at once: a connection left closes at a zero flush timeout), then
    /// the loop, the client and the folder.
    func close() {
        let stopped = beginShutdown(flushTimeout: .zero)
        let clock = clock
        #expect(
            spin(loop) {
                clock.run()  // the flush timeout, if a connection is left
                return stopped.value
            }
        )
        client.close()
        loop.shutdown()
        directory.remove()
    }
}
