import AccessoryTestSupport
import ControlServer
import Testing

/// The linger and shutdown-flush timers on virtual time, with a client that reads nothing: the
/// server's output stays queued, so only those timers can close the connection.
@Suite("linger and shutdown flush")
struct LingerTests {
    static let limits = ControlServerLimits(
        idleConnectionTimeout: nil,
        maxLineBytes: 64,
        maxOutboundBytes: 16 << 20,
        lingerTimeout: .milliseconds(300)
    )

    @Test("closing after flushing a client that does not read: closed at the linger timeout, not before")
    func disconnectAfterFlushingLingers() throws {
        let s = try VirtualTimeServer(limits: Self.limits)
        defer { s.close() }
        s.stickOutput()
        s.connection.disconnectAfterFlushing("bye")
        s.runUntilTimerSet()
        s.clock.advanceTime(by: .milliseconds(299))
        #expect(s.closeReasons.isEmpty, "still flushing")
        s.clock.advanceTime(by: .milliseconds(1))
        #expect(s.closeReasons == [.disconnected("bye")])
    }

    @Test("a line over the limit from a client that does not read: closed at the linger timeout, not before")
    func lineTooLongLingers() throws {
        let s = try VirtualTimeServer(limits: Self.limits)
        defer { s.close() }
        s.stickOutput()
        #expect(s.client.send(String(repeating: "y", count: 100)))
        s.runUntilTimerSet()
        s.clock.advanceTime(by: .milliseconds(299))
        #expect(s.closeReasons.isEmpty, "the final error line is still queued")
        s.clock.advanceTime(by: .milliseconds(1))
        #expect(s.closeReasons == [.lineTooLong(limit: 64)])
    }

    @Test("a shutdown waits for stuck output until its flush timeout, not longer")
    func shutdownFlushesUntilItsTimeout() throws {
        let s = try VirtualTimeServer(limits: Self.limits)
        defer { s.close() }
        s.stickOutput()
        let stopped = s.beginShutdown(flushTimeout: .milliseconds(500))
        s.runUntilTimerSet()
        s.clock.advanceTime(by: .milliseconds(499))
        #expect(!stopped.value && s.closeReasons.isEmpty, "still flushing")
        s.clock.advanceTime(by: .milliseconds(1))
        #expect(stopped.value)
        #expect(s.closeReasons == [.serverShutdown])
    }
}
