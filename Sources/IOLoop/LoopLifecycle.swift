import Synchronization

/// Where a loop is in its life. The legal moves are ``canMove(to:)``, written once; every change
/// goes through ``LoopLifecycle/move(from:to:)``, which traps on any other move in debug builds.
///
/// ```
///   open ──shutdown()──▶ shuttingDown ──queue closed──▶ closing ──descriptors closed──▶ closed
/// ```
///
/// A value. Any thread.
package enum LoopLifecycleState: UInt8, AtomicRepresentable, Sendable, CustomStringConvertible {
    /// Running or idle; ``IOLoop/perform(_:)`` accepts blocks.
    case open
    /// ``IOLoop/shutdown()`` was called: a spawned loop's `run` returns `.shutDown`, and the final
    /// drain runs what was performed (blocks it performs are still accepted).
    case shuttingDown
    /// The perform queue is closed (later blocks are refused); sources, timers and descriptors
    /// are being released.
    case closing
    /// Every descriptor the loop owned is closed.
    case closed

    /// Whether a loop in this state may move to `next`. The one place the transitions live.
    package func canMove(to next: LoopLifecycleState) -> Bool {
        switch (self, next) {
        case (.open, .shuttingDown), (.shuttingDown, .closing), (.closing, .closed): true
        default: false
        }
    }

    /// True once blocks are refused. Any thread.
    package var refusesPerform: Bool { self == .closing || self == .closed }

    package var description: String {
        switch self {
        case .open: "open"
        case .shuttingDown: "shutting down"
        case .closing: "closing"
        case .closed: "closed"
        }
    }
}

/// A loop's lifecycle state, readable from any thread.
///
/// Any thread reads; each move is made by the thread the transition belongs to (``IOLoop``
/// documents which), and a move that lost a race returns false instead of moving.
package final class LoopLifecycle: Sendable {
    private let word = Atomic<LoopLifecycleState>(.open)

    package init() {}

    /// The current state. Any thread.
    package var state: LoopLifecycleState { word.load(ordering: .acquiring) }

    /// Moves from `expected` to `next` if the state is still `expected`; returns whether it moved.
    /// A move the transition table does not allow is a programmer error: it traps in debug builds
    /// and is refused in release. Any thread.
    @discardableResult
    package func move(from expected: LoopLifecycleState, to next: LoopLifecycleState) -> Bool {
        guard expected.canMove(to: next) else {
            assertionFailure("illegal loop lifecycle move: \(expected) → \(next)")
            return false
        }
        return word.compareExchange(expected: expected, desired: next, ordering: .acquiringAndReleasing).exchanged
    }
}
