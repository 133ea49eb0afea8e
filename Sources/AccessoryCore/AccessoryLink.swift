import Operations

/// What deferred work holds to reach its accessory (timers, the raw input's hop, the queue's
/// delegate calls) instead of a weak reference to the accessory itself.
///
/// Why: a weak reference gives an object a side table for good, and from then on every retain,
/// release and unowned use of it takes the slow path; the accessory is used a dozen times a
/// request. Moving the weak references here saved about 1,200 instructions a transact
/// (callgrind, bench/profile/request-profile.py). The queue holds the link strongly, as its
/// delegate (the link holds neither queue nor accessory strongly: no cycle). The accessory sets
/// it when made and clears it when it goes, so whoever still holds the link finds nothing.
///
/// Device loop only: ``accessory`` is read and cleared there (it is unowned and unsafe: the
/// clearing in the accessory's deinit is what makes it safe).
final class AccessoryLink: DeviceQueueDelegate, @unchecked Sendable {  // @unchecked: device-loop-confined.
    unowned(unsafe) var accessory: Accessory?

    func deviceQueue(_ queue: DeviceQueue, didFinish operation: LoopOperation) {
        accessory?.queueDidFinish(operation)
    }
}
