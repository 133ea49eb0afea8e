/// Told what happens in a ``DeviceQueue`` (for counters, queue depth reports, logs).
///
/// Loop thread only: called on the queue's loop. `didAdd` runs when the operation reaches the
/// loop (it may already be cancelled; then `didFinish` follows at once). `didFinish` runs after the
/// operation's own observers, before the next operation is launched, for every operation the
/// queue finishes or that finishes while in the queue (executed, cancelled, drained, failed
/// conditions).
public protocol DeviceQueueDelegate: AnyObject {
    func deviceQueue(_ queue: DeviceQueue, didAdd operation: LoopOperation)
    func deviceQueue(_ queue: DeviceQueue, didFinish operation: LoopOperation)
}

extension DeviceQueueDelegate {
    public func deviceQueue(_ queue: DeviceQueue, didAdd operation: LoopOperation) {}
    public func deviceQueue(_ queue: DeviceQueue, didFinish operation: LoopOperation) {}
}
