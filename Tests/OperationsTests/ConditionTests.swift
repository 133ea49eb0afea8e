import AccessoryTestSupport
import IOLoop
import Operations
import Testing

/// A tiny session state for "logged in" conditions. Loop thread only.
private final class Session: @unchecked Sendable {  // @unchecked: used on the test's loop only.
    var loggedIn = false
}

private enum Modem {}
private enum Bus {}

@Suite("conditions and exclusivity")
struct ConditionTests {
    private func loggedIn(_ session: Session, log: Log<String>, loop: EmbeddedLoop) -> ProbeCondition {
        ProbeCondition(
            name: "LoggedIn",
            dependency: {
                if session.loggedIn { return nil }
                log.append("login produced")
                return BlockLoopOperation(loop: loop, name: "login") { done in
                    log.append("login.execute")
                    session.loggedIn = true
                    done()
                }
            },
            { _, done in done(session.loggedIn ? .satisfied : .failed(NotLoggedIn())) }
        )
    }

    @Test("a condition's dependency runs first, in the queue, directly ahead of the operation that produced it")
    func dependencyRunsFirst() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let session = Session()
        let queue = DeviceQueue(loop: loop)
        let first = StepOperation("first", loop: loop, log: log)
        let needsLogin = StepOperation("query", loop: loop, log: log)
        needsLogin.addCondition(loggedIn(session, log: log, loop: loop))
        let after = StepOperation("after", loop: loop, log: log)
        queue.addOperation(first)
        queue.addOperation(needsLogin)
        queue.addOperation(after)
        loop.run()
        #expect(
            log.all == [
                "first.execute", "first.finish(ok)", "login produced", "login.execute", "query.execute",
                "query.finish(ok)", "after.execute", "after.finish(ok)",
            ]
        )
        #expect(queue.operationCount == 0)
    }

    @Test("a silent condition is evaluated but produces no dependency")
    func silentCondition() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let queue = DeviceQueue(loop: loop)
        let op = StepOperation("query", loop: loop, log: log)
        op.addCondition(SilentCondition(loggedIn(Session(), log: log, loop: loop)))
        queue.addOperation(op)
        loop.run()
        #expect(log.all == ["query.finish(condition Silent<LoggedIn> failed: not logged in)"])
        #expect(op.operationError == .conditionFailed(condition: "Silent<LoggedIn>", underlying: NotLoggedIn()))
        #expect(!op.didExecute)
    }

    @Test("a negated condition inverts the answer")
    func negatedCondition() {
        let loop = EmbeddedLoop()
        let satisfied = ProbeCondition(name: "Yes") { _, done in done(.satisfied) }
        let failing = ProbeCondition(name: "No") { _, done in done(.failed(NotLoggedIn())) }
        let a = StepOperation("a", loop: loop, log: Log())
        a.addCondition(NegatedCondition(satisfied))
        let b = StepOperation("b", loop: loop, log: Log())
        b.addCondition(NegatedCondition(failing))
        a.start()
        b.start()
        loop.run()
        #expect(a.operationError == .conditionFailed(condition: "Not<Yes>", underlying: nil))
        #expect(!a.didExecute)
        #expect(b.error == nil)
        #expect(b.didExecute)
    }

    @Test("every failing condition is reported to observers; the first is the operation's error")
    func allFailuresReported() {
        let loop = EmbeddedLoop()
        let op = StepOperation("op", loop: loop, log: Log())
        op.addCondition(ProbeCondition(name: "A") { _, done in done(.failed(nil)) })
        op.addCondition(ProbeCondition(name: "B") { _, done in done(.satisfied) })
        op.addCondition(ProbeCondition(name: "C") { _, done in done(.failed(DeviceGone())) })
        let reported = Log<String>()
        op.addObserver(
            BlockObserver(didFinish: { _, errors in
                for e in errors { reported.append("\(e)") }
            })
        )
        op.start()
        loop.run()
        #expect(reported.all == ["condition A not satisfied", "condition C failed: device gone"])
        #expect(op.operationError == .conditionFailed(condition: "A", underlying: nil))
    }

    @Test("an operation waiting for its conditions holds the queue; nothing overtakes it")
    func waitingConditionHoldsQueue() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let queue = DeviceQueue(loop: loop)
        var answer: ((ConditionResult) -> Void)?
        let slow = StepOperation("slow", loop: loop, log: log)
        slow.addCondition(ProbeCondition(name: "DeviceReady") { _, done in answer = done })
        let next = StepOperation("next", loop: loop, log: log)
        queue.addOperation(slow)
        queue.addOperation(next)
        loop.advanceTime(by: .seconds(5))
        #expect(log.all.isEmpty, "next did not overtake slow")
        #expect(queue.currentOperation === slow)
        #expect(slow.state == .pending)
        answer?(.satisfied)
        loop.run()
        #expect(log.all == ["slow.execute", "slow.finish(ok)", "next.execute", "next.finish(ok)"])
    }

    @Test("cancelling an operation that waits for its conditions ends it; a late answer is ignored")
    func cancelWhileEvaluating() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let queue = DeviceQueue(loop: loop)
        var answer: ((ConditionResult) -> Void)?
        let slow = StepOperation("slow", loop: loop, log: log)
        slow.addCondition(ProbeCondition(name: "DeviceReady") { _, done in answer = done })
        queue.addOperation(slow)
        queue.addOperation(StepOperation("next", loop: loop, log: log))
        loop.run()
        slow.cancel()
        loop.run()
        answer?(.satisfied)
        loop.run()
        #expect(log.all == ["slow.willCancel", "slow.finish(cancelled)", "next.execute", "next.finish(ok)"])
        #expect(!slow.didExecute)
    }

    @Test("mutual exclusivity holds across two queues that share a controller, and the waiter holds its own queue")
    func exclusivityAcrossQueues() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let controller = ExclusivityController()
        let q1 = DeviceQueue(loop: loop, name: "q1", exclusivity: controller)
        let q2 = DeviceQueue(loop: loop, name: "q2", exclusivity: controller)
        let a = StepOperation("a", loop: loop, log: log, finishAtOnce: false)
        a.addCondition(MutuallyExclusive<Modem>())
        let b = StepOperation("b", loop: loop, log: log, finishAtOnce: false)
        b.addCondition(MutuallyExclusive<Modem>())
        let c = StepOperation("c", loop: loop, log: log)
        let other = StepOperation("other", loop: loop, log: log, finishAtOnce: false)
        other.addCondition(MutuallyExclusive<Bus>())
        q1.addOperation(a)
        q2.addOperation(b)
        q2.addOperation(c)
        let q3 = DeviceQueue(loop: loop, name: "q3", exclusivity: controller)
        q3.addOperation(other)
        loop.run()
        #expect(log.all == ["a.execute", "other.execute"], "b waits for a; c waits behind b; another category runs")
        #expect(controller.holder(of: "MutuallyExclusive<Modem>") === a)
        #expect(controller.waitingCount == 1)
        a.complete()
        loop.run()
        #expect(log.all == ["a.execute", "other.execute", "a.finish(ok)", "b.execute"])
        b.complete()
        loop.run()
        #expect(log.all.suffix(3) == ["b.finish(ok)", "c.execute", "c.finish(ok)"])
        other.complete()
        #expect(controller.holder(of: "MutuallyExclusive<Modem>") == nil)
        #expect(controller.holder(of: "MutuallyExclusive<Bus>") == nil)
    }

    @Test("a waiter cancelled while waiting for exclusivity leaves the line and frees its queue")
    func cancelWhileWaitingForExclusivity() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let controller = ExclusivityController()
        let q1 = DeviceQueue(loop: loop, exclusivity: controller)
        let q2 = DeviceQueue(loop: loop, exclusivity: controller)
        let a = StepOperation("a", loop: loop, log: log, finishAtOnce: false)
        a.addCondition(MutuallyExclusive<Modem>())
        let b = StepOperation("b", loop: loop, log: log)
        b.addCondition(MutuallyExclusive<Modem>())
        q1.addOperation(a)
        q2.addOperation(b)
        q2.addOperation(StepOperation("c", loop: loop, log: log))
        loop.run()
        b.cancel()
        loop.run()
        #expect(log.all == ["a.execute", "b.willCancel", "b.finish(cancelled)", "c.execute", "c.finish(ok)"])
        #expect(controller.waitingCount == 0)
        a.complete()
        #expect(controller.holder(of: "MutuallyExclusive<Modem>") == nil)
    }

    @Test("categories are taken all at once and served first come, first served (no deadlock, no starvation)")
    func allOrNothingFairness() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let controller = ExclusivityController()
        let queues = (0..<3).map { DeviceQueue(loop: loop, name: "q\($0)", exclusivity: controller) }
        let x = StepOperation("x", loop: loop, log: log, finishAtOnce: false)
        x.addCondition(MutuallyExclusive<Modem>())
        let xy = StepOperation("xy", loop: loop, log: log, finishAtOnce: false)
        xy.addCondition(MutuallyExclusive<Modem>())
        xy.addCondition(MutuallyExclusive<Bus>())
        let y = StepOperation("y", loop: loop, log: log, finishAtOnce: false)
        y.addCondition(MutuallyExclusive<Bus>())
        queues[0].addOperation(x)
        loop.run()
        queues[1].addOperation(xy)
        loop.run()
        queues[2].addOperation(y)
        loop.run()
        #expect(log.all == ["x.execute"], "y waits: xy was first in line for Bus")
        x.complete()
        loop.run()
        #expect(log.all == ["x.execute", "x.finish(ok)", "xy.execute"])
        xy.complete()
        loop.run()
        #expect(log.all.suffix(2) == ["xy.finish(ok)", "y.execute"])
        y.complete()
    }

    @Test("keyed categories exclude per key")
    func keyedCategories() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let controller = ExclusivityController()
        let q1 = DeviceQueue(loop: loop, exclusivity: controller)
        let q2 = DeviceQueue(loop: loop, exclusivity: controller)
        let a = StepOperation("a", loop: loop, log: log, finishAtOnce: false)
        a.addCondition(MutuallyExclusive<Bus>(key: "ttyUSB0"))
        let b = StepOperation("b", loop: loop, log: log, finishAtOnce: false)
        b.addCondition(MutuallyExclusive<Bus>(key: "ttyUSB1"))
        q1.addOperation(a)
        q2.addOperation(b)
        loop.run()
        #expect(log.all == ["a.execute", "b.execute"])
        a.complete()
        b.complete()
    }
}

@Suite("exclusivity edge cases")
struct ExclusivityEdgeTests {
    @Test("an operation that finishes itself in willCancel while waiting for exclusivity leaves the line")
    func willCancelFinishesWhileWaiting() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let controller = ExclusivityController()
        let q1 = DeviceQueue(loop: loop, exclusivity: controller)
        let q2 = DeviceQueue(loop: loop, exclusivity: controller)
        let holder = StepOperation("holder", loop: loop, log: log, finishAtOnce: false)
        holder.addCondition(MutuallyExclusive<ExclusivityEdgeTests>())
        let waiter = SelfFinishingOnCancel(loop: loop)
        waiter.addCondition(MutuallyExclusive<ExclusivityEdgeTests>())
        let later = StepOperation("later", loop: loop, log: log)
        later.addCondition(MutuallyExclusive<ExclusivityEdgeTests>())
        q1.addOperation(holder)
        q2.addOperation(waiter)
        q2.addOperation(later)
        loop.run()
        waiter.cancel()
        loop.run()
        #expect(waiter.error is DeviceGone)
        #expect(controller.waitingCount == 1, "only `later` waits now: the waiter left the line")
        holder.complete()
        loop.run()
        #expect(log.all == ["holder.execute", "holder.finish(ok)", "later.execute", "later.finish(ok)"])
        #expect(controller.holder(of: "MutuallyExclusive<ExclusivityEdgeTests>") == nil)
    }

    @Test("a stand-alone operation uses its own exclusivityController")
    func standaloneController() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let controller = ExclusivityController()
        let a = StepOperation("a", loop: loop, log: log, finishAtOnce: false)
        let b = StepOperation("b", loop: loop, log: log)
        for op in [a, b] {
            op.addCondition(MutuallyExclusive<ExclusivityEdgeTests>())
            op.exclusivityController = controller
            op.start()
        }
        loop.run()
        #expect(log.all == ["a.execute"])
        a.complete()
        loop.run()
        #expect(log.all == ["a.execute", "a.finish(ok)", "b.execute", "b.finish(ok)"])
    }
}

/// Finishes itself with its own error when a cancellation reaches it.
private final class SelfFinishingOnCancel: LoopOperation, @unchecked Sendable {  // @unchecked: no state of its own.
    override func willCancel() { finish(error: DeviceGone()) }
}
