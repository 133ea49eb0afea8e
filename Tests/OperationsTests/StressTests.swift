import AccessoryTestSupport
import Glibc
import IOLoop
import Operations
import Synchronization
import Testing

/// Counts what the stress operations did, across threads.
private final class StressCounters: Sendable {
    let deinits = Atomic<Int>(0)
    let finished = Atomic<Int>(0)
    let offLoopFinishes = Atomic<Int>(0)
    let doubleFinishes = Atomic<Int>(0)
    let overlaps = Atomic<Int>(0)
    let outOfOrder = Atomic<Int>(0)
    let resyncs = Atomic<Int>(0)
    /// The sequence number of an operation that executed lately, so cancels can aim near it.
    let frontier = Atomic<Int>(0)
}

/// Per-queue bookkeeping, touched on that queue's loop thread only (atomics keep TSan and the
/// compiler out of it without hiding real races: a second thread would still be caught by the
/// overlap counter).
private final class QueueTrack: Sendable {
    let executing = Atomic<Int>(0)
    let lastSequence = Atomic<Int>(-1)
}

/// Finishes at once, on the next loop turn, or after a short loop timer; aborts the timer when
/// cancelled.
private final class StressOperation: LoopOperation, @unchecked Sendable {  // @unchecked: loop-confined + atomics.
    let sequence: Int
    let mode: Int
    let track: QueueTrack
    let counters: StressCounters
    let finishes = Atomic<Int>(0)
    let executed = Atomic<Bool>(false)
    private var timer: LoopTimer?

    init(loop: any LoopScheduler, sequence: Int, mode: Int, track: QueueTrack, counters: StressCounters) {
        self.sequence = sequence
        self.mode = mode
        self.track = track
        self.counters = counters
        super.init(loop: loop)
    }

    override func execute() {
        executed.store(true, ordering: .relaxed)
        counters.frontier.store(sequence, ordering: .relaxed)
        if track.executing.wrappingAdd(1, ordering: .relaxed).oldValue != 0 {
            counters.overlaps.add(1, ordering: .relaxed)
        }
        if track.lastSequence.exchange(sequence, ordering: .relaxed) >= sequence {
            counters.outOfOrder.add(1, ordering: .relaxed)
        }
        switch mode {
        case 0:
            finish()
        case 1:
            loop.perform { [self] in if state == .executing { finish() } }
        default:
            timer = loop.scheduleTimer(after: .microseconds(20)) { [weak self] in self?.finish() }
        }
    }

    override func willCancel() {
        timer?.cancel()
    }

    override func willFinish(error: (any Error)?) {
        timer?.cancel()
        timer = nil
        if !loop.inLoop { counters.offLoopFinishes.add(1, ordering: .relaxed) }
        if finishes.wrappingAdd(1, ordering: .relaxed).oldValue != 0 {
            counters.doubleFinishes.add(1, ordering: .relaxed)
        }
        if executed.load(ordering: .relaxed) {
            track.executing.subtract(1, ordering: .relaxed)
        }
    }

    deinit {
        counters.deinits.add(1, ordering: .relaxed)
    }
}

private final class FinishCounter: DeviceQueueDelegate {
    let counters: StressCounters
    init(counters: StressCounters) { self.counters = counters }
    func deviceQueue(_ queue: DeviceQueue, didFinish operation: LoopOperation) {
        counters.finished.add(1, ordering: .relaxed)
    }
}

@Suite("race stress")
struct StressTests {
    @Test("100,000 operations on four queues and two loops, cancelled at random from four threads")
    func stress() throws {
        let total = 100_000
        let counters = StressCounters()
        let loops = try (0..<2).map { try IOLoop.spawn(name: "stress-\($0)") }
        runAndCheck(total: total, loops: loops, counters: counters)
        // Memory returns: once the test lets go of them, every operation is freed (the loops are
        // shut down first so that their last perform batch and timer heap let go too).
        for loop in loops { loop.shutdown() }
        let freed = Wait.until(seconds: 10) { counters.deinits.load(ordering: .relaxed) == total }
        #expect(freed, "freed \(counters.deinits.load(ordering: .relaxed)) of \(total)")
    }

    private func runAndCheck(total: Int, loops: [IOLoop], counters: StressCounters) {
        let queueCount = 4
        let delegate = FinishCounter(counters: counters)
        let tracks = (0..<queueCount).map { _ in QueueTrack() }
        let queues = (0..<queueCount).map { i in
            let q = DeviceQueue(loop: loops[i % loops.count], name: "stress-q\(i)") { _, done in
                counters.resyncs.add(1, ordering: .relaxed)
                done()
            }
            // Set before the queue is used: the first perform orders it before any loop access.
            q.delegate = delegate
            return q
        }
        let all = (0..<total).map { i in
            let q = i % queueCount
            return StressOperation(
                loop: queues[q].loop,
                sequence: i,
                mode: (i / queueCount) % 3,
                track: tracks[q],
                counters: counters
            )
        }
        let added = Atomic<Int>(0)

        // Two producers, each feeding two queues in creation order.
        let producers = (0..<2).map { p in
            TestThread {
                for i in 0..<total where (i % queueCount) % 2 == p {
                    queues[i % queueCount].addOperation(all[i])
                    added.add(1, ordering: .releasing)
                }
            }
        }
        // Four cancellers, hitting operations before they are added, while queued, while
        // executing (aiming near the operations executing now) and after they finished, until
        // everything has finished (bounded).
        let cancellers = (0..<4).map { c in
            TestThread {
                var rng = SplitMix64(seed: UInt64(c) &* 0x1234_5678 &+ 1)
                for i in 0..<40_000 {
                    if counters.finished.load(ordering: .relaxed) == total { break }
                    // Leave the two cores to the loops most of the time.
                    if i % 4 == 0 { usleep(50) }
                    let target: Int
                    if Bool.random(using: &rng) {
                        target = counters.frontier.load(ordering: .relaxed) + Int.random(in: -4...12, using: &rng)
                    } else {
                        target = Int.random(in: 0..<min(total, added.load(ordering: .acquiring) + 2_000), using: &rng)
                    }
                    all[min(max(target, 0), total - 1)].cancel()
                    for _ in 0..<Int.random(in: 0..<500, using: &rng) { _ = added.load(ordering: .relaxed) }
                }
            }
        }
        for t in producers + cancellers { t.join() }
        let allFinished = Wait.until(seconds: 60) { counters.finished.load(ordering: .relaxed) == total }
        #expect(allFinished, "finished \(counters.finished.load(ordering: .relaxed)) of \(total)")

        #expect(counters.offLoopFinishes.load(ordering: .relaxed) == 0)
        #expect(counters.doubleFinishes.load(ordering: .relaxed) == 0)
        #expect(counters.overlaps.load(ordering: .relaxed) == 0, "an operation executed while its predecessor did")
        #expect(counters.outOfOrder.load(ordering: .relaxed) == 0)
        var cancelled = 0
        var neverExecutedButNotCancelled = 0
        var unexpected = 0
        for op in all {
            if op.finishes.load(ordering: .relaxed) != 1 { unexpected += 1 }
            switch op.error {
            case nil:
                if !op.executed.load(ordering: .relaxed) { neverExecutedButNotCancelled += 1 }
            case let e as OperationError where e == .cancelled:
                cancelled += 1
            default:
                unexpected += 1
            }
        }
        #expect(neverExecutedButNotCancelled == 0)
        #expect(unexpected == 0)
        #expect(cancelled > 0)
        print("stress: \(cancelled) of \(total) cancelled, \(counters.resyncs.load(ordering: .relaxed)) resyncs")
    }
}
