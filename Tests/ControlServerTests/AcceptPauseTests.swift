import AccessoryTestSupport
import IOLoop
import Testing

@testable import ControlServer

/// The accept pause on virtual time: when accepting resumes, that pauses grow and reset.
@Suite("accept pause")
struct AcceptPauseTests {
    @Test("resumes after the back-off delay, not before; the delays double and reset")
    func resumesAfterTheDelay() {
        let loop = EmbeddedLoop()
        let pause = AcceptPause(scheduler: loop, initial: .milliseconds(10), maximum: .milliseconds(30))
        var resumed = 0
        #expect(pause.failed { resumed += 1 } == .milliseconds(10))
        #expect(pause.isPaused && pause.failures == 1)
        loop.advanceTime(by: .milliseconds(9))
        #expect(resumed == 0, "still paused")
        loop.advanceTime(by: .milliseconds(1))
        #expect(resumed == 1 && !pause.isPaused)
        #expect(pause.failed { resumed += 1 } == .milliseconds(20))
        loop.advanceTime(by: .milliseconds(19))
        #expect(resumed == 1)
        loop.advanceTime(by: .milliseconds(1))
        #expect(resumed == 2)
        #expect(pause.failed { resumed += 1 } == .milliseconds(30), "capped at the maximum")
        loop.advanceTime(by: .milliseconds(30))
        #expect(resumed == 3)
        #expect(pause.succeeded() == 3)
        #expect(pause.failed { resumed += 1 } == .milliseconds(10), "a success starts again from the initial delay")
        loop.advanceTime(by: .milliseconds(10))
        #expect(resumed == 4)
        #expect(loop.nextTimerDeadline == nil, "no timer is left behind")
    }

    @Test("one pause at a time: a failure while paused replaces it; cancel drops it")
    func onePauseAtATime() {
        let loop = EmbeddedLoop()
        let pause = AcceptPause(scheduler: loop, initial: .milliseconds(10), maximum: .seconds(1))
        var resumed: [String] = []
        _ = pause.failed { resumed.append("first") }
        loop.advanceTime(by: .milliseconds(5))
        _ = pause.failed { resumed.append("second") }  // 20 ms from now
        loop.advanceTime(by: .milliseconds(19))
        #expect(resumed.isEmpty, "the first pause was replaced")
        loop.advanceTime(by: .milliseconds(1))
        #expect(resumed == ["second"])
        _ = pause.failed { resumed.append("cancelled") }
        pause.cancel()
        #expect(!pause.isPaused)
        loop.advanceTime(by: .seconds(5))
        #expect(resumed == ["second"], "a cancelled pause never resumes")
        #expect(loop.nextTimerDeadline == nil)
    }
}
