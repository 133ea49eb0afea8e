import AccessoryTestSupport
import ControlServer
import Testing

/// The first-request timeout on virtual time: a connection that completes no request line is
/// closed at `idleConnectionTimeout`, not before; one that completed a request is never cut
/// for being silent (it may be waiting for notifications, a lock, an attached accessory).
@Suite("first request timeout")
struct FirstRequestTimeoutTests {
    static let limits = ControlServerLimits(idleConnectionTimeout: .seconds(10))

    @Test("a connection that sends nothing is closed at the timeout, not before, and counted")
    func silentConnectionIsClosed() throws {
        let s = try VirtualTimeServer(limits: Self.limits)
        defer { s.close() }
        s.clock.advanceTime(by: .milliseconds(9_999))
        #expect(s.handler.closed.value.isEmpty, "closed early")
        s.clock.advanceTime(by: .milliseconds(1))
        #expect(s.closeReasons == [.noRequest(timeout: .seconds(10))])
        #expect(s.server.statistics.disconnectedIdle == 1)
        #expect(s.client.waitForClose())
    }

    @Test("a line begun but not completed does not stop the clock; completing it does, for good")
    func partialLineThenCompleted() throws {
        let s = try VirtualTimeServer(limits: Self.limits)
        defer { s.close() }
        #expect(s.client.send("{\"jsonrpc\":\"2.0\",\"id\":1,"))
        s.clock.advanceTime(by: .seconds(9))
        #expect(s.handler.closed.value.isEmpty)
        #expect(s.client.send("\"method\":\"devices.list\"}\n"))
        let handler = s.handler
        #expect(spin(s.loop) { handler.requests.value.count == 1 })
        // Then silent for a day: a client waiting for notifications is never cut off.
        s.clock.advanceTime(by: .seconds(86_400))
        #expect(s.handler.closed.value.isEmpty, "\(s.closeReasons)")
        #expect(s.server.statistics.disconnectedIdle == 0)
    }

    @Test("without the timeout, a silent connection stays")
    func noTimeout() throws {
        let s = try VirtualTimeServer(limits: ControlServerLimits(idleConnectionTimeout: nil))
        defer { s.close() }
        #expect(s.clock.nextTimerDeadline == nil)
        s.clock.advanceTime(by: .seconds(86_400))
        #expect(s.handler.closed.value.isEmpty)
    }
}
