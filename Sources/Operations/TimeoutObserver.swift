import IOLoop

/// Cancels an operation with ``OperationError/timedOut`` if it is still executing `timeout` after
/// it started (Advanced NSOperations' TimeoutObserver, on a loop timer instead of a dispatch
/// queue). The timer is cancelled when the operation finishes, so finished operations leave
/// nothing behind. One observer may watch several operations.
///
/// ``LoopOperation/timeout`` does the same without an observer; a ``DeviceQueue``'s default
/// timeout uses that. Loop thread only (called there; built anywhere).
public final class TimeoutObserver: OperationObserver, @unchecked Sendable {  // @unchecked: `timers` is loop-confined.

    public let timeout: Duration
    private var timers: [ObjectIdentifier: LoopTimer] = [:]

    public init(timeout: Duration) {
        self.timeout = timeout
    }

    public func operationDidStart(_ operation: LoopOperation) {
        timers[ObjectIdentifier(operation)] = operation.loop.scheduleTimer(after: timeout) { [weak operation] in
            operation?.cancel(error: OperationError.timedOut)
        }
    }

    public func operationDidFinish(_ operation: LoopOperation, errors: [any Error]) {
        timers.removeValue(forKey: ObjectIdentifier(operation))?.cancel()
    }
}
