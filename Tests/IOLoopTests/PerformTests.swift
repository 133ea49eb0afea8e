import AccessoryTestSupport
import Glibc
import IOLoop
import Synchronization
import Testing

/// Records what each perform block saw; only ever touched on the loop thread.
private final class StormLog: @unchecked Sendable {  // @unchecked: mutated only on the loop thread.
    var lastSeq: [Int]
    var outOfOrder = 0
    var offLoop = 0
    var ran = 0
    init(producers: Int) { lastSeq = Array(repeating: -1, count: producers) }
}

@Suite("perform")
struct PerformTests {
    @Test("4 threads × 100,000 blocks: none lost, order kept per producer, all on the loop, wakeups coalesced")
    func performStorm() throws {
        try withCheckedSpawnedLoop(name: "storm") { loop in
            let producers = 4
            let perProducer = 100_000
            let log = StormLog(producers: producers)
            let finished = Atomic<Int>(0)
            let threads = (0..<producers).map { p in
                TestThread {
                    for i in 0..<perProducer {
                        loop.perform {
                            if !loop.inLoop { log.offLoop += 1 }
                            if log.lastSeq[p] != i - 1 { log.outOfOrder += 1 }
                            log.lastSeq[p] = i
                            log.ran += 1
                            if i == perProducer - 1 { finished.add(1, ordering: .releasing) }
                        }
                    }
                }
            }
            for t in threads { t.join() }
            #expect(Wait.until(seconds: 60) { finished.load(ordering: .acquiring) == producers })
            let (ran, outOfOrder, offLoop) = Wait.onLoop(loop) { (log.ran, log.outOfOrder, log.offLoop) }!
            #expect(ran == producers * perProducer)
            #expect(outOfOrder == 0)
            #expect(offLoop == 0)
            // Coalescing: a write happens only on an empty → non-empty transition. With 400,000 blocks
            // the loop cannot drain after every single one, so writes must be far fewer than blocks.
            let writes = loop.wakeupWriteCount
            #expect(writes < producers * perProducer / 4, "eventfd writes: \(writes)")
        }
    }

    @Test("a block performed on the loop thread runs after the current block returns, never reentrantly")
    func performFromLoopIsNotReentrant() throws {
        try withCheckedLoop { loop in
            var order: [String] = []
            let orderBox = UnsafeSendable(value: { (s: String) in order.append(s) })
            loop.perform {
                orderBox.value("outer-start")
                loop.perform { orderBox.value("inner") }
                orderBox.value("outer-end")
            }
            loop.run(while: { order.count < 3 })
            #expect(order == ["outer-start", "outer-end", "inner"])
            #expect(loop.wakeupWriteCount == 0, "no eventfd write is needed from the loop thread")
        }
    }

    @Test("blocks from the loop thread and from others run in the order their perform calls happened")
    func loopAndOtherThreadsKeepOneOrder() throws {
        // The loop thread queues without the lock (a queue of its own); this checks that the two
        // queues still make one order. Each step happens after the one before (joined threads).
        try withCheckedLoop { loop in
            var order: [String] = []
            let record = UnsafeSendable(value: { (s: String) in order.append(s) })
            @Sendable func fromOtherThread(_ name: String) {
                TestThread { loop.perform { record.value(name) } }.join()
            }
            fromOtherThread("other-1")
            loop.perform { record.value("loop-1") }
            fromOtherThread("other-2")
            fromOtherThread("other-3")
            loop.perform { record.value("loop-2") }
            loop.perform {
                record.value("loop-3")
                // Queued while the batch runs: after everything queued before, in both queues.
                fromOtherThread("other-4")
                loop.perform { record.value("loop-4") }
            }
            loop.run(while: { order.count < 8 })
            #expect(order == ["other-1", "loop-1", "other-2", "other-3", "loop-2", "loop-3", "other-4", "loop-4"])
        }
    }

    @Test("a flood of self-performing blocks does not starve a timer (bounded batch per tick)")
    func boundedBatchKeepsTimersAlive() throws {
        try withCheckedLoop { loop in
            let flooding = UnsafeSendable(value: true)
            nonisolated(unsafe) var blocks = 0
            @Sendable func flood() {
                blocks += 1
                if flooding.value { loop.perform(flood) }
            }
            // Enough blocks queued that a "drain everything" loop would never get to the timer.
            for _ in 0..<10 { loop.perform(flood) }
            var timerFired = false
            loop.scheduleTimer(after: .milliseconds(20)) {
                timerFired = true
                flooding.value = false
                loop.stop()
            }
            let result = loop.run(until: loop.now + .seconds(20))
            #expect(result == .stopped)
            #expect(timerFired)
            #expect(blocks > 10)
            // The blocks still queued run once more without queueing themselves again: let them,
            // so that the test leaves nothing on the loop.
            loop.run(until: loop.now + .milliseconds(10))
        }
    }
}

/// Carries a non-Sendable value into a `@Sendable` closure in single-threaded tests, where the
/// test itself guarantees the value is only used on one thread.
final class UnsafeSendable<T>: @unchecked Sendable {  // @unchecked: used on one thread only (the test's loop).
    var value: T
    init(value: T) { self.value = value }
}
