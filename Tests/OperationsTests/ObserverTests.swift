import AccessoryTestSupport
import IOLoop
import Operations
import Testing

@Suite("observers")
struct ObserverTests {
    @Test(
        "observers run in order: didStart before execute, didProduce, didFinish after the flip, before the queue moves on"
    )
    func observerOrder() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let queue = DeviceQueue(loop: loop)
        let delegate = RecordingDelegate(log: log)
        queue.delegate = delegate
        let op = BlockLoopOperation(loop: loop, name: "op") { done in
            log.append("execute")
            done()
        }
        for tag in ["first", "second"] {
            op.addObserver(
                BlockObserver(
                    didStart: { log.append("\(tag).didStart(\($0.state))") },
                    didProduce: { _, produced in log.append("\(tag).didProduce(\(produced.name))") },
                    didFinish: { op, errors in log.append("\(tag).didFinish(\(op.state), \(errors.count) errors)") }
                )
            )
        }
        let producer = BlockLoopOperation(loop: loop, name: "producer") { done in done() }
        queue.addOperation(producer)
        loop.run()
        // An operation may produce another while it runs; the queue takes it.
        let spawner = BlockLoopOperation(loop: loop, name: "spawner") { _ in }
        spawner.addObserver(BlockObserver(didProduce: { _, p in log.append("spawner.didProduce(\(p.name))") }))
        queue.addOperation(spawner)
        loop.run()
        log.append("--")
        spawner.produce(op)
        spawner.finish()
        loop.run()
        #expect(
            log.all == [
                "didAdd(producer)", "didFinish(producer)", "didAdd(spawner)", "--", "spawner.didProduce(op)",
                "didAdd(op)",
                "didFinish(spawner)", "first.didStart(executing)", "second.didStart(executing)", "execute",
                "first.didFinish(finished, 0 errors)", "second.didFinish(finished, 0 errors)", "didFinish(op)",
            ]
        )
    }

    @Test("an operation that never executes gets only didFinish")
    func neverExecutedOnlyFinishes() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let op = StepOperation("op", loop: loop, log: Log())
        op.addObserver(
            BlockObserver(
                didStart: { _ in log.append("didStart") },
                didFinish: { _, errors in log.append("didFinish(\(errors.map { "\($0)" }))") }
            )
        )
        op.cancel()
        op.start()
        loop.run()
        #expect(log.all == ["didFinish([\"cancelled\"])"])
    }

    @Test("the timeout observer cancels with timedOut at its deadline, in virtual time")
    func timeoutObserverFires() {
        let loop = EmbeddedLoop()
        let op = StepOperation("op", loop: loop, log: Log(), finishAtOnce: false)
        op.addObserver(TimeoutObserver(timeout: .milliseconds(500)))
        op.start()
        loop.run()
        loop.advanceTime(by: .milliseconds(499))
        #expect(op.isExecuting)
        loop.advanceTime(by: .milliseconds(1))
        #expect(op.operationError == .timedOut)
    }

    @Test("the timeout observer's timer goes when the operation finishes first; one observer can watch many")
    func timeoutObserverCancelledOnFinish() {
        let loop = EmbeddedLoop()
        let observer = TimeoutObserver(timeout: .seconds(1))
        let ops = (0..<3).map { StepOperation("op\($0)", loop: loop, log: Log(), finishAtOnce: false) }
        for op in ops {
            op.addObserver(observer)
            op.start()
        }
        loop.run()
        ops[0].complete()
        ops[1].complete()
        loop.advanceTime(by: .seconds(1))
        #expect(ops[0].error == nil)
        #expect(ops[1].error == nil)
        #expect(ops[2].operationError == .timedOut)
        #expect(loop.nextTimerDeadline == nil)
    }
}

/// Records a queue's delegate calls.
final class RecordingDelegate: DeviceQueueDelegate {
    let log: Log<String>
    init(log: Log<String>) { self.log = log }
    func deviceQueue(_ queue: DeviceQueue, didAdd operation: LoopOperation) { log.append("didAdd(\(operation.name))") }
    func deviceQueue(_ queue: DeviceQueue, didFinish operation: LoopOperation) {
        log.append("didFinish(\(operation.name))")
    }
}
