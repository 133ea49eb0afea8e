import AccessoryTestSupport
import IOLoop
import Testing

@testable import AccessoryCore

/// The reopen back-off on an embedded loop with virtual time: exact attempt instants.
@Suite("reopen back-off")
struct ReopenScheduleTests {
    /// Runs attempts that always fail (each schedules the next) for `span` of virtual time;
    /// returns the attempt instants in ms after the start.
    func attempts(initialMs: Int, maximumMs: Int, span: Duration) -> [Int64] {
        let loop = EmbeddedLoop()
        let start = loop.now
        let schedule = ReopenSchedule(scheduler: loop, initialMs: initialMs, maximumMs: maximumMs)
        var times: [Int64] = []
        func attempt() {
            times.append(Int64((loop.now - start).milliseconds.rounded()))
            schedule.schedule(attempt)
        }
        schedule.schedule(attempt)
        var elapsed = Duration.zero
        while elapsed < span {
            loop.advanceTime(by: .milliseconds(1))
            elapsed += .milliseconds(1)
        }
        return times
    }

    @Test("doubles from the initial delay up to the cap, then stays there")
    func doublesToTheCap() {
        let t = attempts(initialMs: 20, maximumMs: 200, span: .milliseconds(1000))
        #expect(t == [20, 60, 140, 300, 500, 700, 900])
    }

    @Test("a device that never comes back costs one attempt per cap period, not a busy loop")
    func boundedAttemptRate() {
        let t = attempts(initialMs: 100, maximumMs: 5000, span: .seconds(60))
        // 100, 300, 700, 1500, 3100, 6300 ms, then every 5 s (11300 … 56300): 16 in a minute.
        #expect(t.count == 16)
        #expect(zip(t.dropFirst(), t).allSatisfy { $0 - $1 <= 5000 })
    }

    @Test("reset starts again from the initial delay; only one attempt is ever scheduled")
    func resetAndSingleTimer() {
        let loop = EmbeddedLoop()
        let schedule = ReopenSchedule(scheduler: loop, initialMs: 10, maximumMs: 1000)
        var fired = 0
        schedule.schedule { fired += 1 }
        schedule.schedule { fired += 100 }  // ignored: one is already scheduled
        loop.advanceTime(by: .milliseconds(10))
        #expect(fired == 1)
        schedule.schedule { fired += 1 }  // 20 ms (doubled)
        loop.advanceTime(by: .milliseconds(19))
        #expect(fired == 1)
        loop.advanceTime(by: .milliseconds(1))
        #expect(fired == 2)
        schedule.reset()
        #expect(schedule.nextDelay == .milliseconds(10))
        schedule.schedule { fired += 1 }
        schedule.cancel()
        loop.advanceTime(by: .seconds(5))
        #expect(fired == 2, "a cancelled attempt never runs")
        #expect(loop.nextTimerDeadline == nil)
    }
}
