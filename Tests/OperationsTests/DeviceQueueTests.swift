import AccessoryTestSupport
import IOLoop
import Operations
import Synchronization
import Testing

@Suite("DeviceQueue")
struct DeviceQueueTests {
    @Test("strict FIFO, one at a time, each launched only after its predecessor finished")
    func fifoOneAtATime() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let queue = DeviceQueue(loop: loop)
        var executing = 0
        var maxExecuting = 0
        for i in 0..<5 {
            queue.addOperation(name: "op\(i)") { done in
                executing += 1
                maxExecuting = max(maxExecuting, executing)
                log.append("op\(i)")
                loop.scheduleTimer(after: .milliseconds(10)) {
                    executing -= 1
                    done()
                }
            }
        }
        #expect(queue.operationCount == 5)
        loop.advanceTime(by: .milliseconds(49))
        #expect(log.all == ["op0", "op1", "op2", "op3", "op4"])
        #expect(maxExecuting == 1)
        loop.advanceTime(by: .milliseconds(1))
        #expect(queue.operationCount == 0)
    }

    @Test("an operation that finishes inside execute does not start the next one on its own stack")
    func noReentrantLaunch() {
        let loop = EmbeddedLoop()
        let queue = DeviceQueue(loop: loop)
        var depth = 0
        var maxDepth = 0
        for _ in 0..<100 {
            queue.addOperation { done in
                depth += 1
                maxDepth = max(maxDepth, depth)
                done()
                depth -= 1
            }
        }
        loop.run()
        #expect(maxDepth == 1)
        #expect(queue.operationCount == 0)
    }

    @Test("runNext puts an urgent operation behind the current one only")
    func runNext() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let queue = DeviceQueue(loop: loop)
        let current = StepOperation("current", loop: loop, log: log, finishAtOnce: false)
        queue.addOperation(current)
        loop.run()
        queue.addOperation(StepOperation("a", loop: loop, log: log))
        queue.addOperation(StepOperation("b", loop: loop, log: log))
        queue.addOperation(StepOperation("urgent", loop: loop, log: log), runNext: true)
        loop.run()
        current.complete()
        loop.run()
        #expect(
            log.all.filter { $0.hasSuffix("execute") } == [
                "current.execute", "urgent.execute", "a.execute", "b.execute",
            ]
        )
    }

    @Test("suspend stops launching (the current operation carries on); resume goes on")
    func suspendResume() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let queue = DeviceQueue(loop: loop)
        let first = StepOperation("first", loop: loop, log: log, finishAtOnce: false)
        queue.addOperation(first)
        loop.run()
        queue.suspend()
        queue.addOperation(StepOperation("second", loop: loop, log: log))
        first.complete()
        loop.advanceTime(by: .seconds(1))
        #expect(queue.isSuspended)
        #expect(log.all == ["first.execute", "first.finish(ok)"])
        queue.resume()
        loop.run()
        #expect(log.all == ["first.execute", "first.finish(ok)", "second.execute", "second.finish(ok)"])
    }

    @Test("drain finishes the queued operations with the error at once and cancels the current one with it")
    func drain() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let queue = DeviceQueue(loop: loop)
        let current = StepOperation("current", loop: loop, log: log, finishAtOnce: false)
        queue.addOperation(current)
        loop.run()
        let queued = (0..<3).map { StepOperation("q\($0)", loop: loop, log: log) }
        for op in queued { queue.addOperation(op) }
        queue.drain(error: DeviceGone())
        #expect(queued.allSatisfy { $0.error is DeviceGone && !$0.didExecute })
        #expect(current.isExecuting, "the current one is cancelled, on a later turn")
        loop.run()
        #expect(current.error is DeviceGone)
        #expect(
            log.all == [
                "current.execute", "q0.finish(device gone)", "q1.finish(device gone)", "q2.finish(device gone)",
                "current.willCancel", "current.finish(device gone)",
            ]
        )
        #expect(queue.operationCount == 0)
        // The queue still works afterwards.
        let later = StepOperation("later", loop: loop, log: log)
        queue.addOperation(later)
        loop.run()
        #expect(later.didExecute)
    }

    @Test("cancelAll cancels queued and current operations; queued ones never execute")
    func cancelAll() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let queue = DeviceQueue(loop: loop)
        let current = StepOperation("current", loop: loop, log: log, finishAtOnce: false)
        queue.addOperation(current)
        loop.run()
        let queued = (0..<3).map { StepOperation("q\($0)", loop: loop, log: log) }
        for op in queued { queue.addOperation(op) }
        queue.cancelAll()
        loop.run()
        #expect(current.operationError == .cancelled)
        #expect(queued.allSatisfy { $0.operationError == .cancelled && !$0.didExecute })
        #expect(queue.operationCount == 0)
    }

    @Test("a queued operation that is cancelled leaves the queue at once, without waiting for its turn")
    func cancelQueuedIsPrompt() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let queue = DeviceQueue(loop: loop)
        let current = StepOperation("current", loop: loop, log: log, finishAtOnce: false)
        let victim = StepOperation("victim", loop: loop, log: log)
        queue.addOperation(current)
        queue.addOperation(victim)
        loop.run()
        victim.cancel()
        loop.run()
        #expect(victim.operationError == .cancelled)
        #expect(current.isExecuting)
        #expect(queue.operationCount == 1)
        #expect(queue.operations.map(\.name) == ["current"])
        current.complete()
    }

    @Test("an operation cancelled before it is added finishes cancelled when it reaches the loop")
    func addCancelled() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let queue = DeviceQueue(loop: loop)
        let delegate = RecordingDelegate(log: log)
        queue.delegate = delegate
        let op = StepOperation("op", loop: loop, log: log)
        op.cancel()
        queue.addOperation(op)
        loop.run()
        #expect(log.all == ["didAdd(op)", "op.willCancel", "op.finish(cancelled)", "didFinish(op)"])
    }

    @Test("the default timeout applies to operations without their own; resync runs before the next one starts")
    func defaultTimeoutAndResync() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        var resyncs: [String] = []
        let queue = DeviceQueue(loop: loop, defaultTimeout: .seconds(1)) { previous, done in
            resyncs.append(previous.name)
            log.append("resync(\(previous.name))")
            // Discard late bytes for 100 ms, then let the next operation go.
            loop.scheduleTimer(after: .milliseconds(100)) {
                log.append("resync done")
                done()
                done()  // a second call is ignored
            }
        }
        let stuck = StepOperation("stuck", loop: loop, log: log, finishAtOnce: false)
        let own = StepOperation("own", loop: loop, log: log, finishAtOnce: false)
        own.timeout = .seconds(3)
        let next = StepOperation("next", loop: loop, log: log)
        queue.addOperation(stuck)
        queue.addOperation(own)
        queue.addOperation(next)
        #expect(stuck.timeout == .seconds(1))
        #expect(own.timeout == .seconds(3))
        loop.advanceTime(by: .seconds(1))
        #expect(stuck.operationError == .timedOut)
        #expect(queue.isResyncing)
        #expect(!own.didExecute, "nothing starts during the resync")
        loop.advanceTime(by: .milliseconds(100))
        #expect(own.isExecuting)
        own.complete()
        loop.run()
        #expect(
            log.all == [
                "stuck.execute", "stuck.willCancel", "stuck.finish(timed out)", "resync(stuck)", "resync done",
                "own.execute", "own.finish(ok)", "next.execute", "next.finish(ok)",
            ]
        )
        #expect(resyncs == ["stuck"], "no resync after a normal finish")
    }

    @Test("no resync for an operation cancelled before it executed; resync after one cancelled while executing")
    func resyncOnlyAfterExecution() {
        let loop = EmbeddedLoop()
        var resyncs: [String] = []
        let queue = DeviceQueue(loop: loop) { previous, done in
            resyncs.append(previous.name)
            done()
        }
        let running = StepOperation("running", loop: loop, log: Log(), finishAtOnce: false)
        let waiting = StepOperation("waiting", loop: loop, log: Log())
        queue.addOperation(running)
        queue.addOperation(waiting)
        loop.run()
        waiting.cancel()
        loop.run()
        running.cancel()
        loop.run()
        #expect(resyncs == ["running"])
    }

    @Test("addOperations adds a batch in order with one hop")
    func addBatch() throws {
        let loop = try IOLoop.spawn(name: "batch")
        defer { loop.shutdown() }
        let queue = DeviceQueue(loop: loop)
        let log = Log<String>()
        let ops = (0..<50).map { StepOperation("op\($0)", loop: loop, log: log) }
        ops[10].cancel()
        queue.addOperations(ops)
        #expect(Wait.until(seconds: 20) { ops.allSatisfy(\.isFinished) })
        let executed = log.all.filter { $0.hasSuffix(".execute") }
        #expect(executed == (0..<50).filter { $0 != 10 }.map { "op\($0).execute" })
        #expect(ops[10].operationError == .cancelled)
    }

    @Test("adding from another thread is bridged to the loop; operations run on the loop thread")
    func addFromAnotherThread() throws {
        let loop = try IOLoop.spawn(name: "bridge")
        defer { loop.shutdown() }
        let queue = DeviceQueue(loop: loop)
        let onLoop = Log<Bool>()
        let producers = (0..<2).map { _ in
            TestThread {
                for _ in 0..<500 {
                    queue.addOperation { done in
                        onLoop.append(loop.inLoop)
                        done()
                    }
                }
            }
        }
        for p in producers { p.join() }
        #expect(Wait.until(seconds: 20) { onLoop.count == 1000 && queue.operationCount == 0 })
        #expect(onLoop.all.allSatisfy { $0 })
    }
}

@Suite("DeviceQueue inbox races")
struct DeviceQueueInboxTests {
    /// The adder that finds the inbox empty queues the block that takes it in only after its
    /// push. A second adder's operation, pushed meanwhile and cancelled at once, gets its
    /// cancel-on-loop block queued before that block: cancel on loop must take the inbox in itself.
    @Test("a cancel that reaches the loop before the inbox is taken in takes it in, in order, and finishes once")
    func cancelOvertakesInboxDrain() throws {
        let loop = try IOLoop.forCurrentThread(name: "inbox-race")
        defer { loop.shutdown() }
        let queue = DeviceQueue(loop: loop)
        let log = Log<String>()
        let delegate = RecordingDelegate(log: log)
        queue.delegate = delegate
        let x = StepOperation("x", loop: loop, log: log)
        let y = StepOperation("y", loop: loop, log: log)
        let pushed = Atomic<Bool>(false)
        let release = Atomic<Bool>(false)
        x._testsOnlyHooks = _OperationTestHooks(queueAfterPush: {
            pushed.store(true, ordering: .releasing)
            spinUntil(seconds: 10) { release.load(ordering: .acquiring) }
        })
        let first = TestThread { queue.addOperation(x) }
        #expect(spinUntil(seconds: 10) { pushed.load(ordering: .acquiring) })
        let second = TestThread {
            queue.addOperation(y)
            y.cancel()
        }
        second.join()
        loop.run(until: loop.now + .milliseconds(20))
        #expect(y.operationError == .cancelled)
        #expect(!y.didExecute)
        release.store(true, ordering: .releasing)
        first.join()
        loop.run(until: loop.now + .milliseconds(20))
        #expect(
            log.all == [
                "didAdd(x)", "didAdd(y)", "y.willCancel", "y.finish(cancelled)", "didFinish(y)", "x.execute",
                "x.finish(ok)", "didFinish(x)",
            ]
        )
        #expect(queue.operationCount == 0)
    }
}
