import AccessoryTestSupport
import IOLoop
import Testing

@testable import AccessoryCore

/// The one response-deadline timer on virtual time: when it fires, that it only moves earlier,
/// that it re-arms for the request executing when it fires early.
@Suite("response deadline")
struct ResponseDeadlineTests {
    final class Fixture {
        let loop = EmbeddedLoop()
        let deadline: ResponseDeadline
        let start: LoopInstant
        /// The executing request's deadline, in ms after the start; nil: none executes.
        var currentMs: Int?
        /// When the deadline was told passed, in ms after the start.
        var passedAt: [Int] = []

        init() {
            deadline = ResponseDeadline(scheduler: loop)
            start = loop.now
            deadline.currentDue = { [unowned self] in currentMs.map { at(ms: $0) } }
            deadline.onPassed = { [unowned self] in
                passedAt.append(Int((loop.now - start).milliseconds.rounded()))
            }
        }

        func at(ms: Int) -> LoopInstant { start + .milliseconds(ms) }
        func advance(ms: Int) { loop.advanceTime(by: .milliseconds(ms)) }
    }

    @Test("a request still executing at its deadline is told then, not before")
    func passesAtTheDeadline() {
        let f = Fixture()
        f.currentMs = 100
        f.deadline.watch(f.at(ms: 100))
        f.advance(ms: 99)
        #expect(f.passedAt.isEmpty)
        f.advance(ms: 1)
        #expect(f.passedAt == [100])
        #expect(f.deadline.firesAt == nil && f.loop.nextTimerDeadline == nil, "one shot, nothing left")
    }

    @Test("the timer moves only to an earlier instant")
    func movesOnlyEarlier() {
        let f = Fixture()
        f.deadline.watch(f.at(ms: 100))
        f.deadline.watch(f.at(ms: 200))
        #expect(f.deadline.firesAt == f.at(ms: 100), "a later deadline leaves it alone")
        f.deadline.watch(f.at(ms: 50))
        #expect(f.deadline.firesAt == f.at(ms: 50))
        f.currentMs = 50
        f.advance(ms: 200)
        #expect(f.passedAt == [50], "the timer moved away from fires no more")
    }

    @Test("fired early for a request that ended, it re-arms for the one executing now")
    func reArmsForTheNextRequest() {
        let f = Fixture()
        f.deadline.watch(f.at(ms: 100))  // the first request
        f.advance(ms: 30)
        f.currentMs = 130  // the first ended; the second started at 30 ms with the same timeout
        f.deadline.watch(f.at(ms: 130))  // later: the timer stays at 100
        f.advance(ms: 70)
        #expect(f.passedAt.isEmpty, "the second request's deadline has not come")
        #expect(f.deadline.firesAt == f.at(ms: 130))
        f.advance(ms: 30)
        #expect(f.passedAt == [130])
    }

    @Test("fired while no request executes: nothing is told and nothing re-armed")
    func idleStopsTheTimer() {
        let f = Fixture()
        f.deadline.watch(f.at(ms: 100))
        f.advance(ms: 100)
        #expect(f.passedAt.isEmpty)
        #expect(f.deadline.firesAt == nil && f.loop.nextTimerDeadline == nil)
    }
}
