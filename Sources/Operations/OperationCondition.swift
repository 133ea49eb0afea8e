/// What a condition concluded about an operation. Any thread (a value).
public enum ConditionResult: Sendable {
    /// The operation may execute.
    case satisfied
    /// It may not: the operation finishes with ``OperationError/conditionFailed(condition:underlying:)``
    /// carrying this error (nil when the condition has nothing to add).
    case failed((any Error)?)
}

/// A requirement an operation checks on the loop before it executes (Advanced NSOperations'
/// OperationCondition): "the device is open", "nobody else is using the modem", "not while a
/// firmware update runs".
///
/// Threading: conditions are added while the operation is `initialized` (any thread) and are
/// called on the operation's loop thread only, so they need not be Sendable.
///
/// Order of events for an operation in a ``DeviceQueue``: when it reaches the head of the queue,
/// ``dependency(for:)`` is called on each condition once; the operations it returns run first, in
/// the queue, ahead of it (in condition order). Then it waits for exclusivity (conditions whose
/// ``isMutuallyExclusive`` is true), then ``evaluate(for:completion:)`` is called on every condition.
/// Meanwhile the operation holds its queue: nothing behind it starts.
public protocol OperationCondition {
    /// The condition's name, in errors and logs. For a mutually exclusive condition it is also
    /// the exclusivity category: two operations with conditions of the same name never run at the
    /// same time, in any queue that shares the ``ExclusivityController``.
    var name: String { get }

    /// Whether operations with this condition must not run at the same time as each other.
    var isMutuallyExclusive: Bool { get }

    /// An operation that must run before `operation` and may make the condition true (log in,
    /// open the port), or nil. Called once, on the loop thread, only for operations in a
    /// ``DeviceQueue``. The returned operation must be new (`initialized`) and on the same loop.
    func dependency(for operation: LoopOperation) -> LoopOperation?

    /// Decides whether `operation` may execute. Called on the loop thread; call `completion`
    /// exactly once, on the loop thread, now or on a later loop turn.
    func evaluate(for operation: LoopOperation, completion: @escaping (ConditionResult) -> Void)
}

extension OperationCondition {
    /// Most conditions are not exclusive.
    public var isMutuallyExclusive: Bool { false }

    /// Most conditions produce no dependency.
    public func dependency(for operation: LoopOperation) -> LoopOperation? { nil }
}
