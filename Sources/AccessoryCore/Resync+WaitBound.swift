import IOLoop
import Operations

extension Resync {
    /// Bounds the wait of `op`, a request with `wait_ms` queued while this resync runs: at
    /// `deadline`, if a resync still runs and `op` has neither started nor finished, `expire` is
    /// told (the accessory fails the request with `wait expired`). Behind other requests a request
    /// waits its turn as always; nothing is scheduled when no resync runs. Device loop only.
    func boundWait(of op: LoopOperation, until deadline: LoopInstant, expire: @escaping (LoopOperation) -> Void) {
        guard isActive else { return }
        _ = scheduler.scheduleTimer(at: deadline, repeating: nil, modes: [.common]) { [weak self, weak op] in
            guard let self, let op, isActive, !op.didExecute, !op.isFinished else { return }
            expire(op)
        }
    }
}
