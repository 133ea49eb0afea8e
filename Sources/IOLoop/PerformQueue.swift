import Synchronization
import SystemCalls

/// The blocks waiting to run on a loop: one queue fed from two sides, drained by the loop.
///
/// - Other threads append under a lock, to `crossThread`; the first append of a burst rings the
///   doorbell (the loop's eventfd), later ones only append.
/// - The loop thread appends to `local`, without the lock (the daemon performs several blocks per
///   request from the loop itself).
///
/// The ordering rule, which ``enqueue(_:onLoop:)`` and ``drain(limit:_:)`` implement:
/// 1. Blocks run in the order their `enqueue` calls happened, whichever side they came from: a
///    loop-side enqueue first moves in what other threads queued before it, and a refill takes
///    the local side (which already holds those) before the cross-thread side.
/// 2. A block enqueued while the queue drains runs after every block already taken for running
///    (never reentrantly), in the same drain if the limit allows, else in the next one.
/// 3. Once the loop's lifecycle leaves `.shuttingDown` for `.closing` (``close()``), enqueue
///    refuses blocks: it returns false and drops them.
///
/// Threading: ``enqueue(_:onLoop:)`` with `onLoop: false` and ``ring()`` are any thread; the rest
/// is the loop thread only.
package final class PerformQueue<Item>: @unchecked Sendable {
    // @unchecked: `crossThread` is under its lock; `local`, `ready` and `readyIndex` are
    // confined to the loop thread.

    private let crossThread = Locked<[Item]>([])
    /// True while `crossThread` may be non-empty: set under the lock by producers, cleared under
    /// it by the loop, read without it so that the loop takes the lock only when there is
    /// something to take.
    private let crossThreadPending = Atomic<Bool>(false)
    private let lifecycle: LoopLifecycle
    /// Wakes the loop (writes its eventfd). Called under the lock, so that it never races with
    /// the loop closing the eventfd at shutdown (see ``withProducersExcluded(_:)``).
    private let doorbell: @Sendable () -> Void
    private let rings = Atomic<Int>(0)

    private var local: [Item] = []
    private var ready: [Item] = []
    private var readyIndex = 0

    /// A queue that refuses blocks once `lifecycle` is past `.shuttingDown` and calls `doorbell`
    /// to wake the loop. Any thread.
    package init(lifecycle: LoopLifecycle, doorbell: @escaping @Sendable () -> Void) {
        self.lifecycle = lifecycle
        self.doorbell = doorbell
    }

    /// How many times the doorbell rang. Any thread.
    package var ringCount: Int { rings.load(ordering: .relaxed) }

    /// Queues `item`; `onLoop` says whether the caller is the loop thread. Returns false, dropping
    /// it, once the queue is closed. Any thread (`onLoop` must be true only on the loop thread).
    @inline(__always)
    package func enqueue(_ item: Item, onLoop: Bool) -> Bool {
        if onLoop {
            // The loop itself closes the queue, so this load sees its own close by program order;
            // `state` loads with acquiring ordering everywhere, more than this path needs.
            if lifecycle.state.refusesPerform { return false }
            // Rule 1: what other threads queued before this one runs before it.
            if crossThreadPending.load(ordering: .acquiring) { takeCrossThread(into: &local) }
            local.append(item)
            return true
        }
        return crossThread.withLock { items in
            if lifecycle.state.refusesPerform { return false }
            let wasEmpty = items.isEmpty
            items.append(item)
            crossThreadPending.store(true, ordering: .releasing)
            // Once per empty→non-empty transition: the first producer of a burst pays for it.
            if wasEmpty {
                rings.add(1, ordering: .relaxed)
                doorbell()
            }
            return true
        }
    }

    /// Wakes the loop without queueing anything, unless the queue is closed (the eventfd may be
    /// gone then). Any thread.
    package func ring() {
        crossThread.withLock { _ in
            guard !lifecycle.state.refusesPerform else { return }
            rings.add(1, ordering: .relaxed)
            doorbell()
        }
    }

    /// Whether blocks are waiting. Loop thread only.
    package var hasItems: Bool {
        readyIndex < ready.count || !local.isEmpty || crossThreadPending.load(ordering: .acquiring)
    }

    /// How many blocks are waiting (takes the lock). Loop thread only.
    package var count: Int {
        ready.count - readyIndex + local.count + crossThread.withLock { $0.count }
    }

    /// Runs up to `limit` blocks with `run`, in the order of the rule above. Returns how many ran.
    /// Loop thread only.
    @discardableResult
    @inline(__always)
    package func drain(limit: Int, _ run: (Item) -> Void) -> Int {
        // Most loop turns have no blocks: answer that without swapping the (empty) arrays.
        guard hasItems else { return 0 }
        var ran = 0
        while ran < limit {
            if readyIndex == ready.count {
                // Refill in causal order: the local side (which already holds whatever other
                // threads queued before its items), then other threads' later ones.
                ready.emptyKeepingCapacity()
                readyIndex = 0
                swap(&local, &ready)
                if crossThreadPending.load(ordering: .acquiring) { takeCrossThread(into: &ready) }
                if ready.isEmpty { break }
            }
            // Taken out before it runs (rule 2): what it enqueues lands behind it.
            let item = ready[readyIndex]
            readyIndex += 1
            run(item)
            ran += 1
        }
        return ran
    }

    /// Closes the queue: moves the lifecycle from `.shuttingDown` to `.closing` under the lock, so
    /// that a producer either queued before (and its block is drained after) or sees the close.
    /// Loop thread only.
    package func close() {
        crossThread.withLock { _ in _ = lifecycle.move(from: .shuttingDown, to: .closing) }
    }

    /// Runs `body` while no producer is inside ``enqueue(_:onLoop:)``: one that saw the queue
    /// open has rung the doorbell by the time `body` runs (the loop closes its eventfd here).
    /// Loop thread only.
    package func withProducersExcluded(_ body: () -> Void) {
        crossThread.withLock { _ in body() }
    }

    /// Appends what other threads have queued to `items`. Loop thread only.
    private func takeCrossThread(into items: inout [Item]) {
        crossThread.withLock { q in
            if items.isEmpty {
                swap(&q, &items)  // O(1), and both keep capacity
            } else {
                items.append(contentsOf: q)
                q.removeAll(keepingCapacity: true)
            }
            crossThreadPending.store(false, ordering: .releasing)
        }
    }
}
