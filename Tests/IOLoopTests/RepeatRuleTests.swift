import Testing

@testable import IOLoop

/// The repeating-timer rule (`LoopTimer.nextRepeatDeadline`) alone, and through the virtual-time
/// `TimerQueue` that `EmbeddedLoop` uses: pure values, no loop and no clock.
@Suite("repeating-timer rule")
struct RepeatRuleTests {
    private static func at(ms: UInt64) -> LoopInstant { LoopInstant(nanoseconds: ms * 1_000_000) }

    @Test("on time, the next deadline is one interval after the one it fired for, not after now")
    func onTime() {
        let next = LoopTimer.nextRepeatDeadline(
            after: Self.at(ms: 100),
            interval: .milliseconds(10),
            now: Self.at(ms: 103).nanoseconds
        )
        #expect(next == Self.at(ms: 110))
    }

    @Test("behind by more than an interval, the missed fires are skipped: one interval after now")
    func fellBehind() {
        let next = LoopTimer.nextRepeatDeadline(
            after: Self.at(ms: 100),
            interval: .milliseconds(10),
            now: Self.at(ms: 135).nanoseconds
        )
        #expect(next == Self.at(ms: 145))
    }

    @Test("a next deadline equal to now counts as missed (it would fire again at once)")
    func exactlyOneIntervalBehind() {
        let next = LoopTimer.nextRepeatDeadline(
            after: Self.at(ms: 100),
            interval: .milliseconds(10),
            now: Self.at(ms: 110).nanoseconds
        )
        #expect(next == Self.at(ms: 120))
    }

    @Test("the virtual-time queue follows the rule: late fire skips, one-shot does not come back")
    func timerQueueFollowsTheRule() throws {
        let queue = TimerQueue()
        var ticks = 0
        let repeating = queue.schedule(
            deadline: Self.at(ms: 10),
            repeating: .milliseconds(10),
            modes: [.common]
        ) { ticks += 1 }
        let once = queue.schedule(deadline: Self.at(ms: 10), repeating: nil, modes: [.common]) {}

        let handler = try #require(queue.popDue(now: Self.at(ms: 35).nanoseconds))
        handler()
        #expect(ticks == 1)
        #expect(repeating.deadline == Self.at(ms: 45))
        _ = try #require(queue.popDue(now: Self.at(ms: 35).nanoseconds))
        #expect(!once.isValid)
        // Nothing else is due at 35 ms: the repeating timer did not queue its missed fires.
        #expect(queue.popDue(now: Self.at(ms: 35).nanoseconds) == nil)
        #expect(queue.earliest() == Self.at(ms: 45).nanoseconds)
    }
}
