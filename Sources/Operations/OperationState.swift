/// Where a ``LoopOperation`` is in its life. States only move forward, in this order; a move to
/// an earlier or the same state traps.
///
/// ```
///   initialized ──start()/addOperation──▶ pending ──conditions met──▶ ready ──▶ executing ──▶ finished
///        (any thread)                        │                           │                      ▲
///                                            └───── cancelled, drained or a condition failed ───┘
/// ```
///
/// `initialized → pending` happens on the thread that calls ``LoopOperation/start()`` or
/// ``DeviceQueue/addOperation(_:runNext:)``; every later move happens on the operation's loop
/// thread. Any thread (a value).
public enum OperationState: UInt8, Sendable, Comparable, CustomStringConvertible {
    /// Created and still being configured (conditions, observers, timeout). Nothing runs yet.
    case initialized = 0
    /// Handed to a queue or started: waiting for its turn, for exclusivity and for its conditions.
    case pending = 1
    /// Its conditions are satisfied; it is about to execute (on the same loop turn).
    case ready = 2
    /// ``LoopOperation/execute()`` has been called and ``LoopOperation/finish(error:)`` not yet.
    case executing = 3
    /// Ended, successfully or not. Terminal.
    case finished = 4

    public static func < (a: OperationState, b: OperationState) -> Bool { a.rawValue < b.rawValue }

    public var description: String {
        switch self {
        case .initialized: "initialized"
        case .pending: "pending"
        case .ready: "ready"
        case .executing: "executing"
        case .finished: "finished"
        }
    }
}

/// The operation's cross-thread word: the state in the low three bits, plus three flags:
/// - cancelling: claimed by the one `cancel` call that wins; it then stores its error;
/// - cancelled: set by that call once the error is stored (what `isCancelled` reports);
/// - scheduled: set once the operation's first loop-side block has been queued, so a cancellation
///   queued after it runs after it.
///
/// Any thread (a value).
struct StateWord: Equatable {
    static let stateMask: UInt8 = 0b00_0111
    static let cancelledBit: UInt8 = 0b00_1000
    static let scheduledBit: UInt8 = 0b01_0000
    static let cancellingBit: UInt8 = 0b10_0000

    var raw: UInt8

    init(raw: UInt8) { self.raw = raw }

    var state: OperationState {
        // The low bits only ever hold a valid raw value; anything else is memory corruption.
        OperationState(rawValue: raw & Self.stateMask)!
    }
    var isCancelled: Bool { raw & Self.cancelledBit != 0 }
    var isScheduled: Bool { raw & Self.scheduledBit != 0 }
    var isCancelling: Bool { raw & Self.cancellingBit != 0 }

    func with(state: OperationState) -> StateWord {
        StateWord(raw: (raw & ~Self.stateMask) | state.rawValue)
    }
}
