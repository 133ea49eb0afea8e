import AccessoryTestSupport
import ControlServer
import IOLoop
import Testing

/// The linger and shutdown-flush timers on virtual time: a server on a loop the test runs on
/// its own thread, with its timers on an embedded loop, and a client that reads nothing, so that
/// the server's output stays queued and only those timers can close the connection.
@Suite("linger and shutdown flush")
struct LingerTests {
    /// Test thread only.
    final class Fixture {
        let directory: TemporaryDirectory
        let loop: IOLoop
        let clock = EmbeddedLoop()
        let handler = TestHandler(TestHandler.hold)
        let server: ControlServer
        let client: TestClient
        let connection: ClientConnection

        init(limits: ControlServerLimits) throws {
            directory = try TemporaryDirectory()
            let path = directory.file("accessoryd.sock")
            let socket = try ListeningSocket(path: path, mode: 0o600)
            loop = try IOLoop.forCurrentThread()
            server = ControlServer(loop: loop, socket: socket, limits: limits, handler: handler, scheduler: clock)
            server.start()
            client = try TestClient(path: path)
            let handler = handler
            #expect(spin(loop) { !handler.connections.value.isEmpty })
            connection = try #require(handler.connections.value.first)
        }

        /// Sends the client a line larger than a socket's buffer, which it never reads, and
        /// runs the loop until the socket has taken what it can: the rest stays queued.
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

        var closeReasons: [CloseReason?] { handler.closed.value.map(\.reason) }

        func close() {
            let stopped = Shared(false)
            server.beginShutdown(flushTimeout: .zero) { stopped.mutate { $0 = true } }
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

    static let limits = ControlServerLimits(
        maxLineBytes: 64,
        maxOutboundBytes: 16 << 20,
        lingerTimeout: .milliseconds(300)
    )

    @Test("closing after flushing a client that does not read: closed at the linger timeout, not before")
    func disconnectAfterFlushingLingers() throws {
        let f = try Fixture(limits: Self.limits)
        defer { f.close() }
        f.stickOutput()
        f.connection.disconnectAfterFlushing("bye")
        f.runUntilTimerSet()
        f.clock.advanceTime(by: .milliseconds(299))
        #expect(f.closeReasons.isEmpty, "still flushing")
        f.clock.advanceTime(by: .milliseconds(1))
        #expect(f.closeReasons == [.disconnected("bye")])
    }

    @Test("a line over the limit from a client that does not read: closed at the linger timeout, not before")
    func lineTooLongLingers() throws {
        let f = try Fixture(limits: Self.limits)
        defer { f.close() }
        f.stickOutput()
        #expect(f.client.send(String(repeating: "y", count: 100)))
        f.runUntilTimerSet()
        f.clock.advanceTime(by: .milliseconds(299))
        #expect(f.closeReasons.isEmpty, "the final error line is still queued")
        f.clock.advanceTime(by: .milliseconds(1))
        #expect(f.closeReasons == [.lineTooLong(limit: 64)])
    }

    @Test("a shutdown waits for stuck output until its flush timeout, not longer")
    func shutdownFlushesUntilItsTimeout() throws {
        let f = try Fixture(limits: Self.limits)
        defer { f.close() }
        f.stickOutput()
        let stopped = Shared(false)
        f.server.beginShutdown(flushTimeout: .milliseconds(500)) { stopped.mutate { $0 = true } }
        f.runUntilTimerSet()
        f.clock.advanceTime(by: .milliseconds(499))
        #expect(!stopped.value && f.closeReasons.isEmpty, "still flushing")
        f.clock.advanceTime(by: .milliseconds(1))
        #expect(stopped.value)
        #expect(f.closeReasons == [.serverShutdown])
    }
}
