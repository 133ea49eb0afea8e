import AccessoryTestSupport
import IOLoop
import Testing

@testable import AccessoryCore

/// The `attach` idle limit on virtual time: activity keeps it off, silence ends it, once.
@Suite("idle timer")
struct IdleTimerTests {
    @Test("silent for the limit: told once, at the limit")
    func silenceEndsIt() {
        let loop = EmbeddedLoop()
        let timer = IdleTimer(scheduler: loop, limit: .milliseconds(400))
        var idle = 0
        timer.start { idle += 1 }
        loop.advanceTime(by: .milliseconds(399))
        #expect(idle == 0)
        loop.advanceTime(by: .milliseconds(1))
        #expect(idle == 1 && !timer.isRunning)
        loop.advanceTime(by: .seconds(5))
        #expect(idle == 1, "told once")
        #expect(loop.nextTimerDeadline == nil, "no timer is left behind")
    }

    @Test("activity keeps it off: the limit counts from the last activity")
    func activityKeepsItOff() {
        let loop = EmbeddedLoop()
        let timer = IdleTimer(scheduler: loop, limit: .milliseconds(400))
        var idleAt: [Duration] = []
        let start = loop.now
        timer.start { idleAt.append(loop.now - start) }
        // A byte every 100 ms for 1.2 s, three times the limit.
        for _ in 0..<12 {
            loop.advanceTime(by: .milliseconds(100))
            timer.activity()
        }
        #expect(idleAt.isEmpty && timer.isRunning)
        // Then silence: idle 400 ms after the last byte (at 1.2 s), not before.
        loop.advanceTime(by: .milliseconds(399))
        #expect(idleAt.isEmpty)
        loop.advanceTime(by: .milliseconds(1))
        #expect(idleAt == [.milliseconds(1600)])
    }

    @Test("stopped, it is never told")
    func stopped() {
        let loop = EmbeddedLoop()
        let timer = IdleTimer(scheduler: loop, limit: .milliseconds(400))
        var idle = 0
        timer.start { idle += 1 }
        loop.advanceTime(by: .milliseconds(200))
        timer.stop()
        loop.advanceTime(by: .seconds(5))
        #expect(idle == 0 && !timer.isRunning)
        #expect(loop.nextTimerDeadline == nil)
    }
}
