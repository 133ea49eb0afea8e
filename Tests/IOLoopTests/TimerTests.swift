import AccessoryTestSupport
import IOLoop
import Testing

@Suite("timers")
struct TimerTests {
    @Test("timers fire in deadline order, whatever the order they were scheduled in")
    func deadlineOrder() throws {
        try withCheckedLoop { loop in
            var fired: [Int] = []
            // Taken before the timers are scheduled: each deadline counts from its own scheduling,
            // and under ThreadSanitizer scheduling five took long enough to make a later start
            // look as if the last timer fired early.
            let start = loop.now
            for ms in [30, 10, 50, 20, 40] {
                loop.scheduleTimer(after: .milliseconds(ms)) { fired.append(ms) }
            }
            loop.run(while: { fired.count < 5 && loop.now < start + .seconds(10) })
            #expect(fired == [10, 20, 30, 40, 50])
            // Never early: the last one cannot fire before its deadline.
            #expect(loop.now - start >= .milliseconds(50))
        }
    }

    @Test("a deadline left armed by a cancelled timer wakes the loop once; the next timer still fires on time")
    func cancelledTimerLeavesNoGap() throws {
        try withCheckedLoop { loop in
            let early = loop.scheduleTimer(after: .milliseconds(20)) {}
            loop.run(until: loop.now + .milliseconds(1))  // the loop arms the timerfd for it
            early.cancel()
            var firedAt: LoopInstant?
            let start = loop.now
            loop.scheduleTimer(after: .milliseconds(80)) {
                firedAt = loop.now
                loop.stop()
            }
            loop.run(until: start + .seconds(3))
            let at = try #require(firedAt, "the later timer never fired")
            #expect(at - start >= .milliseconds(80))
            #expect(at - start < .milliseconds(600), "fired \(at - start) after it was scheduled")
        }
    }

    @Test("timers scheduled and cancelled per request do not re-arm the timerfd each time")
    func perRequestTimersDoNotRearm() throws {
        try withCheckedLoop { loop in
            let before = loop.timerArmCount
            for _ in 0..<100 {
                let t = loop.scheduleTimer(after: .seconds(5)) {}
                loop.run(until: loop.now + .milliseconds(1))  // a pass: the loop decides what to arm
                t.cancel()
            }
            // The first deadline is armed; the later ones are not earlier, and cancelling disarms nothing.
            #expect(loop.timerArmCount - before <= 2, "armed \(loop.timerArmCount - before) times")
        }
    }

    @Test("equal deadlines fire in scheduling order")
    func equalDeadlinesFIFO() throws {
        try withCheckedLoop { loop in
            var fired: [Int] = []
            let at = loop.now + .milliseconds(5)
            for i in 0..<20 { _ = loop.scheduleTimer(at: at, repeating: nil, modes: [.common]) { fired.append(i) } }
            let start = loop.now
            loop.run(while: { fired.count < 20 && loop.now < start + .seconds(10) })
            #expect(fired == Array(0..<20))
        }
    }

    @Test("a repeating timer repeats; cancelling it stops it")
    func repeating() throws {
        try withCheckedLoop { loop in
            var ticks = 0
            var timer: LoopTimer?
            timer = loop.scheduleTimer(after: .milliseconds(2), repeating: .milliseconds(2)) {
                ticks += 1
                if ticks == 5 { timer?.cancel() }
            }
            let start = loop.now
            loop.run(until: start + .milliseconds(300))
            #expect(ticks == 5)
            #expect(timer?.isValid == false)
        }
    }

    @Test("a cancelled timer never fires, also when cancelled by an earlier timer in the same pass")
    func cancelled() throws {
        try withCheckedLoop { loop in
            var fired: [String] = []
            let late = loop.scheduleTimer(after: .milliseconds(6)) { fired.append("late") }
            let victim = loop.scheduleTimer(after: .milliseconds(5)) { fired.append("victim") }
            loop.scheduleTimer(after: .milliseconds(4)) {
                fired.append("killer")
                victim.cancel()
            }
            late.cancel()
            let start = loop.now
            loop.run(until: start + .milliseconds(60))
            #expect(fired == ["killer"])
        }
    }

    @Test("many cancelled timers are purged from the heap (no unbounded growth)")
    func purge() throws {
        try withCheckedLoop { loop in
            let queue = TimerQueue()
            let keeper = queue.schedule(deadline: loop.now + .seconds(200), repeating: nil, modes: [.common]) {}
            for _ in 0..<10_000 {
                let t = queue.schedule(deadline: loop.now + .seconds(100), repeating: nil, modes: [.common]) {}
                t.cancel()
            }
            // Without the purge all 10,001 entries would stay until their deadlines passed.
            #expect(queue.storedCount < 200, "stored entries: \(queue.storedCount)")
            #expect(queue.earliest() == keeper.deadline.nanoseconds)
        }
    }
}
