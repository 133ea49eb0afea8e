import Synchronization

/// Where a client connection is in its life: what its bytes are read as, whether lines may still
/// be sent to it, and how it ends. One state; the legal moves are ``canMove(to:)``, written once,
/// and every change goes through ``ConnectionStateWord/move(to:)``, which refuses any other.
///
/// ```
///              ┌── attach read ──▶ awaitingAttach ── answered ──▶ raw
///   requests ◀─┴── attach refused ───────┘                          │
///     (requests, awaitingAttach and raw are open: bytes in, lines out)
///      │
///      ├─ half-closed by the client, server shutdown ─▶ draining ──────────┐
///      ├─ request line too long, disconnect after flushing ─▶ flushing ────┤ (draining may
///      └─ disconnect, slow reader, failed write (any thread) ─▶ closing ───┤  flush or close)
///                                                                          ▼
///                                                     closed (the loop released everything)
/// ```
///
/// Every move but the one to ``closing`` is made on the control loop; ``closing`` may be entered
/// from any thread (a sender that finds the client too slow, a handler that disconnects it), so
/// a loop move can lose that race: it is then refused, and the close already queued wins.
///
/// A value. Any thread.
package enum ConnectionState: UInt8, AtomicRepresentable, Sendable, CaseIterable, CustomStringConvertible {
    /// Reading request lines and answering them.
    case requests
    /// An `attach` request was read: nothing more is read until its answer (an error reads
    /// requests again; success switches to ``raw``).
    case awaitingAttach
    /// Every byte read goes to the attached device's sink.
    case raw
    /// Nothing more is read; the replies owed for requests already read still go out, and the
    /// connection closes once they are written (the client half-closed, or the server is
    /// shutting down).
    case draining
    /// The senders are off; what is queued (a final error line) is written, then the connection
    /// closes, at the latest after the linger timeout.
    case flushing
    /// The senders are off and the close is queued on the control loop.
    case closing
    /// Socket closed, queued output dropped, server and handler told. Terminal.
    case closed

    /// Whether a connection in this state may move to `next`. The one place the transitions live.
    package func canMove(to next: ConnectionState) -> Bool {
        switch (self, next) {
        case (.requests, .awaitingAttach), (.awaitingAttach, .requests), (.awaitingAttach, .raw): true
        case (.requests, .draining), (.awaitingAttach, .draining), (.raw, .draining): true
        case (.requests, .flushing), (.awaitingAttach, .flushing), (.raw, .flushing), (.draining, .flushing): true
        case (.requests, .closing), (.awaitingAttach, .closing), (.raw, .closing), (.draining, .closing): true
        case (.closed, _): false
        case (_, .closed): true
        default: false
        }
    }

    /// Neither draining nor closing: bytes are read (unless held back) and lines may be written by
    /// whichever thread sends them.
    package var isOpen: Bool { self == .requests || self == .awaitingAttach || self == .raw }

    /// The senders deliver lines: open or draining (a draining client is still owed its replies).
    package var acceptsLines: Bool { isOpen || self == .draining }

    package var description: String {
        switch self {
        case .requests: "requests"
        case .awaitingAttach: "awaiting attach"
        case .raw: "raw"
        case .draining: "draining"
        case .flushing: "flushing"
        case .closing: "closing"
        case .closed: "closed"
        }
    }
}

/// A connection's ``ConnectionState``, readable from any thread, changed only by the moves of
/// ``ConnectionState/canMove(to:)``.
///
/// Any thread.
package struct ConnectionStateWord: ~Copyable, Sendable {
    private let word = Atomic<ConnectionState>(.requests)

    package init() {}

    /// The current state. Any thread.
    package var current: ConnectionState { word.load(ordering: .acquiring) }

    /// Moves to `next` if the table allows it from the current state; returns the state it left,
    /// or nil when the move is refused (nothing changes). A move another thread made meanwhile
    /// is seen, and judged from the state it made. Any thread.
    @discardableResult
    package func move(to next: ConnectionState) -> ConnectionState? {
        var state = current
        // Another thread can only move the state forward (to closing), so this retries at most
        // a few times.
        while state.canMove(to: next) {
            let (exchanged, found) = word.compareExchange(
                expected: state,
                desired: next,
                ordering: .acquiringAndReleasing
            )
            if exchanged { return state }
            state = found
        }
        return nil
    }
}
