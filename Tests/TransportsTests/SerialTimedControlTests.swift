import AccessoryTestSupport
import IOLoop
import SystemCalls
import Testing
import Transports

/// Pulse, break and drain on virtual time: a pty's port whose timers run on an embedded loop,
/// the modem-line ioctls a pty lacks answered through the system-call seam, each line control
/// recorded with the virtual instant it came at. The port's own loop is never run.
@Suite("serial timed controls")
struct SerialTimedControlTests {
    /// Test thread only.
    final class Fixture {
        let loop: IOLoop
        let clock = EmbeddedLoop()
        let pty: TestPty
        let port: SerialPort
        let lines: LineControlRecorder

        init() throws {
            loop = try IOLoop.forCurrentThread()
            pty = try TestPty()
            port = try SerialPort.open(path: pty.slavePath, settings: SerialSettings(), on: loop, scheduler: clock)
            lines = LineControlRecorder(fd: try #require(port.channel.fileDescriptor), clock: clock)
        }

        func close() {
            lines.remove()
            port.close()
            loop.shutdown()
        }
    }

    typealias Call = LineControlRecorder.Call

    @Test("a pulse restores the line after its duration, not before")
    func pulseRestoresTheLineAfterItsDuration() throws {
        let f = try Fixture()
        defer { f.close() }
        var outcome: Result<ControlOutcome, TransportError>?
        f.port.pulse(.dtr, for: .milliseconds(100)) { outcome = $0 }
        #expect(f.lines.calls == [Call(.tiocmbic, at: .zero)], "DTR dropped at once")
        f.clock.advanceTime(by: .milliseconds(99))
        #expect(outcome == nil && f.lines.calls.count == 1, "still held low")
        f.clock.advanceTime(by: .milliseconds(1))
        #expect(f.lines.calls == [Call(.tiocmbic, at: .zero), Call(.tiocmbis, at: .milliseconds(100))])
        #expect(outcome == .success(.done))
        #expect(f.clock.leftovers.isEmpty)
    }

    @Test("a break is held for its duration, then cleared")
    func breakIsHeldForItsDuration() throws {
        let f = try Fixture()
        defer { f.close() }
        var outcome: Result<ControlOutcome, TransportError>?
        f.port.sendBreak(for: .milliseconds(30)) { outcome = $0 }
        #expect(f.lines.calls == [Call(.tiocsbrk, at: .zero)])
        f.clock.advanceTime(by: .milliseconds(29))
        #expect(outcome == nil && f.lines.calls.count == 1, "the break still holds")
        f.clock.advanceTime(by: .milliseconds(1))
        #expect(f.lines.calls == [Call(.tiocsbrk, at: .zero), Call(.tioccbrk, at: .milliseconds(30))])
        #expect(outcome == .success(.done), "a pty takes a break")
        #expect(f.clock.leftovers.isEmpty)
    }

    @Test("an unsupported pulse completes on the next iteration, never inside the call")
    func unsupportedCompletesLater() throws {
        let f = try Fixture()
        defer { f.close() }
        f.lines.remove()  // the pty as it is: no modem lines
        var outcome: Result<ControlOutcome, TransportError>?
        f.port.pulse(.dtr, for: .milliseconds(10)) { outcome = $0 }
        #expect(outcome == nil, "completions never run inside the call")
        f.clock.run()
        #expect(outcome == .success(.unsupported))
        #expect(f.port.channel.isOpen, "unsupported is not a failure")
    }

    @Test("a drain nobody reads times out at the first poll past its deadline, not before")
    func drainTimesOutAtItsDeadline() throws {
        let f = try Fixture()
        defer { f.close() }
        try f.port.channel.write([UInt8](repeating: 1, count: 256 * 1024))
        var drained: Result<ControlOutcome, TransportError>?
        f.port.drain(timeout: .milliseconds(50)) { drained = $0 }
        // Polls 1, 2, 4, 8, 16 and 32 ms apart: at 1, 3, 7, 15, 31 and 63 ms.
        f.clock.advanceTime(by: .milliseconds(62))
        #expect(drained == nil, "no poll since the deadline yet")
        f.clock.advanceTime(by: .milliseconds(1))
        #expect(drained == .failure(.timedOut(operation: "drain", path: f.pty.slavePath)))
        #expect(f.clock.leftovers.isEmpty)
    }
}
