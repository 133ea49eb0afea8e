import IOLoop
import SystemCalls

/// A loop with virtual time that runs on the test's own thread: nothing happens until the test
/// calls ``run()`` or ``advanceTime(by:)``. It makes timeout and back-off tests deterministic.
///
/// Threading: ``perform(_:)`` may be called from any thread (it only queues); everything else,
/// including running, belongs to the test's thread. ``inLoop`` is always true, as for NIO's
/// EmbeddedEventLoop: the test thread *is* the loop.
package final class EmbeddedLoop: LoopScheduler, @unchecked Sendable {
    // @unchecked: `queue` is behind a Mutex; the clock and timers are touched only by the test
    // thread that drives the loop.

    private let queue = Locked<[@Sendable () -> Void]>([])
    private let heap = TimerQueue()
    private var clock: UInt64

    /// Starts the virtual clock at `start` nanoseconds (non-zero so that "zero" is never special).
    package init(start: UInt64 = 1_000_000_000) {
        clock = start
    }

    package var inLoop: Bool { true }

    package var now: LoopInstant { LoopInstant(nanoseconds: clock) }

    @discardableResult
    package func perform(_ block: @escaping @Sendable () -> Void) -> Bool {
        queue.withLock { $0.append(block) }
        return true
    }

    package func scheduleTimer(
        at deadline: LoopInstant,
        repeating: Duration?,
        modes: [RunMode],
        _ handler: @escaping () -> Void
    ) -> LoopTimer {
        heap.schedule(deadline: deadline, repeating: repeating, modes: modes, handler: handler)
    }

    /// Runs queued blocks (and blocks they queue) until none is left, and timers already due.
    /// Returns how many blocks and timers ran.
    @discardableResult
    package func run() -> Int {
        var ran = 0
        while true {
            let batch = queue.withLock { q -> [@Sendable () -> Void] in
                defer { q.removeAll() }
                return q
            }
            var firedTimers = 0
            while let t = heap.popDue(now: clock) {
                t()
                firedTimers += 1
            }
            if batch.isEmpty && firedTimers == 0 { return ran }
            for b in batch { b() }
            ran += batch.count + firedTimers
        }
    }

    /// Moves the clock forward by `delta`, firing each timer due on the way at its own deadline
    /// (in deadline order), running queued blocks between them.
    package func advanceTime(by delta: Duration) {
        let target = clock + delta.nanosecondsClamped
        run()
        while let next = heap.earliest(), next <= target {
            clock = max(clock, next)
            run()
        }
        clock = target
        run()
    }

    /// What the loop still holds: live timers and queued blocks (it has no sources or observers).
    package var leftovers: LoopLeftovers {
        LoopLeftovers(timers: heap.liveCount, blocks: queue.withLock { $0.count })
    }

    /// The deadline of the next live timer, if any.
    package var nextTimerDeadline: LoopInstant? { heap.earliest().map { LoopInstant(nanoseconds: $0) } }
}
