import AccessoryTestSupport
import IOLoop
import Operations
import Synchronization
import Testing

@Suite("LoopOperation")
struct LoopOperationTests {
    @Test("states move forward through pending, ready and executing, seen by observers on the loop")
    func statesMoveForward() {
        let loop = EmbeddedLoop()
        let seen = Log<String>()
        let op = StepOperation("op", loop: loop, log: seen, finishAtOnce: false)
        op.addCondition(
            ProbeCondition(name: "probe") { op, done in
                seen.append("condition sees \(op.state)")
                done(.satisfied)
            }
        )
        op.addObserver(BlockObserver(didStart: { seen.append("didStart sees \($0.state)") }))
        #expect(op.state == .initialized)
        op.start()
        #expect(op.state == .pending)
        loop.run()
        #expect(op.state == .executing)
        op.complete()
        #expect(op.state == .finished)
        #expect(seen.all == ["condition sees pending", "didStart sees executing", "op.execute", "op.finish(ok)"])
    }

    @Test("a BlockLoopOperation's done may be called from another thread; the finish happens on the loop")
    func blockOperationDoneFromAnotherThread() async throws {
        let loop = try IOLoop.spawn(name: "block-op")
        defer { loop.shutdown() }
        let finishedOnLoop = Atomic<Bool>(false)
        let op = BlockLoopOperation(loop: loop) { done in
            let t = TestThread { done(DeviceGone()) }
            t.join()
        }
        op.addObserver(BlockObserver(didFinish: { _, _ in finishedOnLoop.store(loop.inLoop, ordering: .relaxed) }))
        op.start()
        let result = await op.result
        #expect(throws: DeviceGone.self) { try result.get() }
        let onLoop = finishedOnLoop.load(ordering: .relaxed)
        #expect(onLoop)
        #expect(op.error is DeviceGone)
    }

    @Test("done after a cancellation is ignored, and the block is released when the operation finishes")
    func blockOperationDoneAfterCancel() {
        let loop = EmbeddedLoop()
        let held = Mutex<BlockLoopOperation.Done?>(nil)
        weak var weakCapture: Capture?
        let op: BlockLoopOperation
        do {
            let capture = Capture()
            weakCapture = capture
            op = BlockLoopOperation(loop: loop) { done in
                _ = capture
                held.withLock { $0 = done }
            }
        }
        op.start()
        loop.run()
        #expect(op.isExecuting)
        #expect(weakCapture == nil, "the block was released when it ran")
        op.cancel()
        loop.run()
        #expect(op.operationError == .cancelled)
        held.withLock { $0 }?(nil)
        loop.run()
        #expect(op.operationError == .cancelled, "the late done changed nothing")
    }

    @Test("await result waits for the finish; an operation already finished answers at once")
    func awaitResult() async throws {
        let loop = try IOLoop.spawn(name: "await-result")
        defer { loop.shutdown() }
        let op = BlockLoopOperation(loop: loop) { done in
            loop.scheduleTimer(after: .milliseconds(20)) { done() }
        }
        op.start()
        try await op.value()
        #expect(op.isFinished)
        let again = await op.result
        #expect((try? again.get()) != nil)
    }

    @Test("many tasks awaiting one operation are all resumed, once")
    func manyAwaiters() async throws {
        let loop = try IOLoop.spawn(name: "awaiters")
        defer { loop.shutdown() }
        let op = BlockLoopOperation(loop: loop) { done in
            loop.scheduleTimer(after: .milliseconds(30)) { done(DeviceGone()) }
        }
        let resumed = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 {
                group.addTask { (try? await op.result.get()) == nil }
            }
            op.start()
            var n = 0
            for await failed in group where failed { n += 1 }
            return n
        }
        #expect(resumed == 20)
    }

    @Test("cancel with an error finishes with that error; the first cancel's error wins")
    func cancelWithError() {
        let loop = EmbeddedLoop()
        let op = StepOperation("op", loop: loop, log: Log(), finishAtOnce: false)
        op.start()
        loop.run()
        op.cancel(error: DeviceGone())
        op.cancel(error: OperationError.timedOut)
        loop.run()
        #expect(op.error is DeviceGone)
    }

    @Test("willCancel may finish the operation with an error of its own")
    func willCancelFinishesItself() {
        let loop = EmbeddedLoop()
        let op = AbortingOperation(loop: loop)
        op.start()
        loop.run()
        op.cancel()
        loop.run()
        #expect(op.error is DeviceGone)
        #expect(op.endedByCancellation, "it still ended because of the cancellation")
    }

    @Test("a timeout cancels an executing operation with timedOut, in virtual time")
    func timeoutProperty() {
        let loop = EmbeddedLoop()
        let op = StepOperation("op", loop: loop, log: Log(), finishAtOnce: false)
        op.timeout = .seconds(2)
        op.start()
        loop.run()
        loop.advanceTime(by: .milliseconds(1999))
        #expect(op.isExecuting)
        loop.advanceTime(by: .milliseconds(1))
        #expect(op.operationError == .timedOut)
        #expect(op.endedByCancellation)
        #expect(op.needsResync)
    }

    @Test("finishing before the timeout cancels the timer")
    func timeoutTimerCancelled() {
        let loop = EmbeddedLoop()
        let op = StepOperation("op", loop: loop, log: Log(), finishAtOnce: false)
        op.timeout = .seconds(2)
        op.start()
        loop.run()
        #expect(loop.nextTimerDeadline != nil)
        op.complete()
        #expect(loop.nextTimerDeadline == nil)
        loop.advanceTime(by: .seconds(3))
        #expect(op.error == nil)
    }

    @Test("finish twice traps")
    func finishTwiceTraps() async {
        await #expect(processExitsWith: .failure) {
            let loop = EmbeddedLoop()
            let op = LoopOperation(loop: loop)
            op.start()
            loop.run()  // the default execute() finishes
            op.finish()
        }
    }

    @Test("start twice traps, and so does adding a started operation to a queue")
    func startTwiceTraps() async {
        await #expect(processExitsWith: .failure) {
            let op = LoopOperation(loop: EmbeddedLoop())
            op.start()
            op.start()
        }
        await #expect(processExitsWith: .failure) {
            let loop = EmbeddedLoop()
            let op = LoopOperation(loop: loop)
            op.start()
            DeviceQueue(loop: loop).addOperation(op)
        }
    }

    @Test("configuring a started operation traps")
    func configureAfterStartTraps() async {
        await #expect(processExitsWith: .failure) {
            let op = LoopOperation(loop: EmbeddedLoop())
            op.start()
            op.timeout = .seconds(1)
        }
    }
}

private final class Capture {}

/// Ends with its own error when cancelled.
private final class AbortingOperation: LoopOperation, @unchecked Sendable {  // @unchecked: no state of its own.
    override func execute() {}
    override func willCancel() { finish(error: DeviceGone()) }
}

/// A condition made of a closure. Loop thread only.
struct ProbeCondition: OperationCondition {
    let name: String
    var isMutuallyExclusive = false
    var dependency: (() -> LoopOperation?)?
    let body: (LoopOperation, @escaping (ConditionResult) -> Void) -> Void

    init(
        name: String,
        exclusive: Bool = false,
        dependency: (() -> LoopOperation?)? = nil,
        _ body: @escaping (LoopOperation, @escaping (ConditionResult) -> Void) -> Void
    ) {
        self.name = name
        self.isMutuallyExclusive = exclusive
        self.dependency = dependency
        self.body = body
    }

    func dependency(for operation: LoopOperation) -> LoopOperation? { dependency?() }

    func evaluate(for operation: LoopOperation, completion: @escaping (ConditionResult) -> Void) {
        body(operation, completion)
    }
}
