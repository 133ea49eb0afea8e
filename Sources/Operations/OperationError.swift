/// Why an operation ended without success, when the operation machinery (not the operation's own
/// work) decided it. Any thread (a value).
///
/// Errors of an operation's own work, and the error given to ``DeviceQueue/drain(error:)``, are
/// passed through unchanged; this enum only covers cancellation, timeouts and conditions.
public enum OperationError: Error, CustomStringConvertible {
    /// ``LoopOperation/cancel(error:)`` was called (with the default error) before the operation
    /// finished. An operation cancelled before it executed never executes.
    case cancelled
    /// The operation's timeout (``LoopOperation/timeout``, a queue's default timeout, or a
    /// ``TimeoutObserver``) expired while it was executing.
    case timedOut
    /// A condition was not satisfied. `condition` is the condition's ``OperationCondition/name``;
    /// `underlying` is the error the condition reported, if it gave one.
    case conditionFailed(condition: String, underlying: (any Error)?)
    /// Given to `await result` callers when the operation's loop has shut down before the
    /// operation finished (it never will). The operation itself is left as it was.
    case loopShutDown

    public var description: String {
        switch self {
        case .cancelled: "cancelled"
        case .timedOut: "timed out"
        case .conditionFailed(let name, nil): "condition \(name) not satisfied"
        case .conditionFailed(let name, let underlying?): "condition \(name) failed: \(underlying)"
        case .loopShutDown: "loop shut down"
        }
    }
}

extension OperationError: Equatable {
    /// Cases compare by case and condition name; underlying errors compare by their reflected
    /// description (an `any Error` has no equality of its own). Meant for tests and logs.
    public static func == (a: OperationError, b: OperationError) -> Bool {
        switch (a, b) {
        case (.cancelled, .cancelled), (.timedOut, .timedOut), (.loopShutDown, .loopShutDown):
            return true
        case (.conditionFailed(let n1, let e1), .conditionFailed(let n2, let e2)):
            return n1 == n2 && e1.map { String(reflecting: $0) } == e2.map { String(reflecting: $0) }
        default:
            return false
        }
    }
}
