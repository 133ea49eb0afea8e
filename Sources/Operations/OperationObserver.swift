/// Watches an operation's life (Advanced NSOperations' OperationObserver).
///
/// Threading: observers are added while the operation is `initialized` (any thread) and called on
/// the operation's loop thread only, right after the state changes, in the order they were added:
/// ``operationDidStart(_:)`` right after `executing` (before ``LoopOperation/execute()``),
/// ``operation(_:didProduce:)`` from ``LoopOperation/produce(_:)``, and
/// ``operationDidFinish(_:errors:)`` right after `finished` (before `await result` callers resume
/// and before the queue moves on). An operation that never executes (cancelled, drained, a failed
/// condition) gets only ``operationDidFinish(_:errors:)``.
public protocol OperationObserver {
    /// The operation is now `executing`; ``LoopOperation/execute()`` is next.
    func operationDidStart(_ operation: LoopOperation)

    /// The operation produced `newOperation` while running.
    func operation(_ operation: LoopOperation, didProduce newOperation: LoopOperation)

    /// The operation is `finished`. `errors` is empty on success; otherwise its first element is
    /// ``LoopOperation/error`` (several when several conditions failed).
    func operationDidFinish(_ operation: LoopOperation, errors: [any Error])
}

extension OperationObserver {
    public func operationDidStart(_ operation: LoopOperation) {}
    public func operation(_ operation: LoopOperation, didProduce newOperation: LoopOperation) {}
    public func operationDidFinish(_ operation: LoopOperation, errors: [any Error]) {}
}
