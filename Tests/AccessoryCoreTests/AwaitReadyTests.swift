import AccessoryTestSupport
import IOLoop
import Operations
import Testing

@testable import AccessoryCore

/// A `wait_ms` request's wait for its accessory to become ready, on virtual time: the wait ends
/// at its deadline and not before, or as soon as something ends it sooner.
@Suite("waiting for readiness")
struct AwaitReadyTests {
    /// Test thread only.
    final class Fixture {
        let loop = EmbeddedLoop()
        let admission: Admission<RequestOperation>
        /// The request the wait is for; never started.
        let request: BlockLoopOperation
        let wait: AwaitReadyOperation

        init(deadlineMs: Int, ready: Bool = false) {
            admission = Admission(scheduler: loop, queueDepth: 4)
            request = BlockLoopOperation(loop: loop, name: "request") { $0() }
            wait = AwaitReadyOperation(
                loop: loop,
                accessoryName: "echo",
                admission: admission,
                isReady: { ready },
                deadline: loop.now + .milliseconds(deadlineMs),
                dependent: request
            )
        }
    }

    @Test("an accessory that stays away: the wait ends at its deadline, not before")
    func endsAtTheDeadline() {
        let f = Fixture(deadlineMs: 200)
        f.wait.start()
        f.loop.run()
        #expect(f.admission.readyWaiters.count == 1, "it waits")
        f.loop.advanceTime(by: .milliseconds(199))
        #expect(!f.wait.isFinished)
        f.loop.advanceTime(by: .milliseconds(1))
        #expect(f.wait.isFinished && f.wait.error == nil, "it never fails: the condition decides")
        #expect(f.admission.readyWaiters.isEmpty)
        #expect(f.loop.leftovers.isEmpty)
    }

    @Test("ended sooner (the accessory became ready): the deadline timer goes with it")
    func endedSoonerCancelsTheTimer() {
        let f = Fixture(deadlineMs: 200)
        f.wait.start()
        f.loop.run()
        f.loop.advanceTime(by: .milliseconds(50))
        for w in f.admission.readyWaiters { w.finish() }  // what the accessory does when ready
        f.loop.run()
        #expect(f.wait.isFinished && f.admission.readyWaiters.isEmpty)
        #expect(f.loop.nextTimerDeadline == nil, "no timer left")
    }

    @Test("an accessory ready by the time the wait starts: it ends at once, with no timer")
    func readyAlreadyEndsAtOnce() {
        let f = Fixture(deadlineMs: 200, ready: true)
        f.wait.start()
        f.loop.run()
        #expect(f.wait.isFinished && f.admission.readyWaiters.isEmpty)
        #expect(f.loop.nextTimerDeadline == nil)
    }
}
