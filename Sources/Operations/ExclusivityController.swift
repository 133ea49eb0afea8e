/// Grants exclusivity categories (the names of mutually exclusive conditions) to operations, so
/// that two operations with the same category never run at the same time, even in different
/// queues. Share one controller between all the ``DeviceQueue``s that must exclude each other
/// (typically one per device loop).
///
/// Rules: an operation takes all its categories at once or none (so two operations can never hold
/// one category each and wait for the other's); waiting operations are served first come, first
/// served per category (a waiter blocks later requests for its categories, so it cannot starve);
/// categories are held from the moment the operation is granted them until it finishes, and are
/// released by finish, including a finish by cancellation while waiting.
///
/// Loop thread only: every operation that uses a controller must be on the same loop, and the
/// controller is only touched on that loop's thread (by the operations themselves).
public final class ExclusivityController: @unchecked Sendable {  // @unchecked: state touched on the loop thread only.

    private struct Waiter {
        let operation: LoopOperation
        let categories: [String]
    }

    private var holders: [String: LoopOperation] = [:]
    private var waiters: [Waiter] = []

    /// Makes an empty controller. Any thread.
    public init() {}

    /// The operation holding `category`, if any. Loop thread only.
    public func holder(of category: String) -> LoopOperation? { holders[category] }

    /// How many operations are waiting for categories. Loop thread only.
    public var waitingCount: Int { waiters.count }

    /// Grants `categories` to `operation` now and returns true, or puts it in line and returns
    /// false (it is then told through `exclusivityGranted()` on a later loop turn).
    func request(_ categories: [String], for operation: LoopOperation) -> Bool {
        assert(operation.loop.inLoop, "not on the loop thread")
        let free = categories.allSatisfy { holders[$0] == nil }
        let unclaimed = waiters.allSatisfy { w in !w.categories.contains(where: categories.contains) }
        if free && unclaimed {
            grant(categories, to: operation)
            return true
        }
        waiters.append(Waiter(operation: operation, categories: categories))
        return false
    }

    /// Releases what `operation` holds (at finish) and serves waiters.
    func release(_ operation: LoopOperation) {
        assert(operation.loop.inLoop, "not on the loop thread")
        for c in operation.heldCategories where holders[c] === operation {
            holders[c] = nil
        }
        operation.heldCategories = []
        serveWaiters()
    }

    /// Takes `operation` out of line (it was cancelled while waiting) and serves waiters.
    func withdraw(_ operation: LoopOperation) {
        assert(operation.loop.inLoop, "not on the loop thread")
        waiters.removeAll { $0.operation === operation }
        serveWaiters()
    }

    private func grant(_ categories: [String], to operation: LoopOperation) {
        for c in categories { holders[c] = operation }
        operation.heldCategories = categories
    }

    private func serveWaiters() {
        var claimed = Set<String>()
        var i = 0
        while i < waiters.count {
            let w = waiters[i]
            if w.categories.allSatisfy({ holders[$0] == nil && !claimed.contains($0) }) {
                waiters.remove(at: i)
                grant(w.categories, to: w.operation)
                // On a later turn: the releasing operation is in the middle of finishing.
                let op = w.operation
                op.loop.perform { op.exclusivityGranted() }
            } else {
                claimed.formUnion(w.categories)
                i += 1
            }
        }
    }
}
