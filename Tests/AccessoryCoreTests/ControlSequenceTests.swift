import AccessoryTestSupport
import Glibc
import IOLoop
import SystemCalls
import Testing
import Transports

@testable import AccessoryCore

/// A `control` request's steps on virtual time: a pty's port whose timers, and the sequence's
/// holds, run on an embedded loop; the modem-line ioctls a pty lacks are answered through the
/// system-call seam and each line control is recorded with the virtual instant it came at.
@Suite("control sequence")
struct ControlSequenceTests {
    typealias Call = LineControlRecorder.Call

    /// Test thread only.
    final class Fixture {
        let loop: IOLoop
        let clock = EmbeddedLoop()
        let master: CInt
        let port: SerialPort
        let lines: LineControlRecorder
        /// How the sequence ended, and when (virtual time from the start).
        var ends: [(ControlSequence.End, Duration)] = []
        var isLive = true

        init() throws {
            loop = try IOLoop.forCurrentThread()
            let pair = try PseudoTerminal.open()
            let path = pair.slavePath
            master = pair.master.release()
            port = try SerialPort.open(path: path, settings: SerialSettings(), on: loop, scheduler: clock)
            lines = LineControlRecorder(fd: try #require(port.channel.fileDescriptor), clock: clock)
        }

        func run(_ steps: [ControlSequence.Step]) {
            let start = clock.now
            ControlSequence.run(
                steps[...],
                on: port,
                scheduler: clock,
                isLive: { [unowned self] in isLive },
                ended: { [unowned self] end in ends.append((end, clock.now - start)) }
            )
        }

        func close() {
            lines.remove()
            port.close()
            Glibc.close(master)
            loop.shutdown()
        }
    }

    @Test("each step is held for its time: the next step's lines change at its end, not before")
    func stepsAreHeldForTheirTime() throws {
        let f = try Fixture()
        defer { f.close() }
        // The ESP32 reset: DTR off and RTS on for 100 ms, DTR on and RTS off for 50 ms, DTR off.
        f.run([
            .setLines(dtr: false, rts: true, holdMs: 100), .setLines(dtr: true, rts: false, holdMs: 50),
            .setLines(dtr: false, rts: nil, holdMs: 0),
        ])
        let first = [Call(.tiocmbic, at: .zero), Call(.tiocmbis, at: .zero)]
        #expect(f.lines.calls == first, "DTR before RTS")
        f.clock.advanceTime(by: .milliseconds(99))
        #expect(f.lines.calls == first, "the first step still holds")
        f.clock.advanceTime(by: .milliseconds(1))
        let second = first + [Call(.tiocmbis, at: .milliseconds(100)), Call(.tiocmbic, at: .milliseconds(100))]
        #expect(f.lines.calls == second)
        f.clock.advanceTime(by: .milliseconds(49))
        #expect(f.lines.calls == second && f.ends.isEmpty, "the second step still holds")
        f.clock.advanceTime(by: .milliseconds(1))
        #expect(f.lines.calls == second + [Call(.tiocmbic, at: .milliseconds(150))])
        #expect(f.ends.map(\.0) == [.done] && f.ends.map(\.1) == [.milliseconds(150)])
        #expect(f.clock.leftovers.isEmpty)
    }

    @Test("a break after a held step starts when the hold ends and the sequence ends with it")
    func breakFollowsTheHold() throws {
        let f = try Fixture()
        defer { f.close() }
        f.run([.setLines(dtr: true, rts: nil, holdMs: 20), .sendBreak(ms: 30)])
        f.clock.advanceTime(by: .milliseconds(20))
        #expect(f.lines.calls == [Call(.tiocmbis, at: .zero), Call(.tiocsbrk, at: .milliseconds(20))])
        f.clock.advanceTime(by: .milliseconds(29))
        #expect(f.ends.isEmpty, "the break still holds")
        f.clock.advanceTime(by: .milliseconds(1))
        #expect(f.lines.calls.last == Call(.tioccbrk, at: .milliseconds(50)))
        #expect(f.ends.map(\.0) == [.done] && f.ends.map(\.1) == [.milliseconds(50)])
    }

    @Test("a sequence no longer live between steps stops where it is and never ends")
    func stopsWhenNoLongerLive() throws {
        let f = try Fixture()
        defer { f.close() }
        f.run([.setLines(dtr: true, rts: nil, holdMs: 100), .setLines(dtr: false, rts: nil, holdMs: 0)])
        f.clock.advanceTime(by: .milliseconds(50))
        f.isLive = false  // cancelled during the hold
        f.clock.advanceTime(by: .milliseconds(100))
        #expect(f.lines.calls == [Call(.tiocmbis, at: .zero)], "the line stays as the first step set it")
        #expect(f.ends.isEmpty)
    }

    @Test("a port without modem lines ends the sequence at once as unsupported")
    func unsupportedLinesEndIt() throws {
        let f = try Fixture()
        defer { f.close() }
        f.lines.remove()  // the pty as it is: no modem lines
        f.run([.setLines(dtr: true, rts: nil, holdMs: 100)])
        #expect(f.ends.map(\.0) == [.linesUnsupported] && f.ends.map(\.1) == [.zero])
        #expect(f.clock.leftovers.isEmpty, "no hold after a refused step")
    }
}
