import ControlProtocol
import IOLoop
import Operations

/// The accessory's side of ``Admission`` and ``Lease``: acting on a verdict, and admitting the
/// parked requests again when the lock is released.
extension Accessory {
    /// Admits a request (see ``Admission``): refused at once, parked behind another client's
    /// lock, or queued (behind a wait for readiness if it asked to wait). Device loop.
    func submit(_ op: RequestOperation, waitMs: Int?) {
        submit(op, waitDeadline: waitMs.flatMap { $0 > 0 ? loop.now + .milliseconds($0) : nil })
    }

    private func submit(_ op: RequestOperation, waitDeadline: LoopInstant?) {
        loop.preconditionInLoop()
        let conditions = Admission<RequestOperation>.Conditions(
            open: settings.enabled && !isShutDown,
            holder: lease.holder,
            ready: isReadyForRequests,
            queued: queue.operationCount
        )
        switch admission.verdict(client: op.origin.clientID, waitDeadline: waitDeadline, conditions) {
        case .closed:
            op.replyWithoutRunning(.unavailable(device: name, state: .disabled, reason: stateReason))
        case .locked(let holder):
            op.replyWithoutRunning(.locked(device: name, holder: holder))
        case .park(let until):
            admission.park(op, until: until)
        case .unavailable:
            op.replyWithoutRunning(.unavailable(device: name, state: reportedState, reason: reportedReason))
        case .queueFull:
            op.replyWithoutRunning(.queueFull(device: name, depth: limits.queueDepth))
        case .enqueue(let awaitingReadyUntil):
            if let awaitingReadyUntil {
                op.addCondition(AccessoryReadyCondition(accessory: self, deadline: awaitingReadyUntil))
            }
            queue.addOperation(op)
            if let waitDeadline { boundWaitBehindResync(op, until: waitDeadline) }
        }
    }

    /// A parked request's `wait_ms` ran out before the lock was released. Device loop.
    func parkedWaitExpired(_ op: RequestOperation) {
        loop.assertInLoop()
        op.replyWithoutRunning(.waitExpired(device: name, what: "the lock to be released"))
    }

    /// Now ready: the waits in the queue end, so their requests go on, in order.
    func admitReadyWaiters() {
        for w in admission.readyWaiters { w.finish() }
    }

    /// A request finished (answered, cancelled, its client gone): a wait in the queue on its
    /// behalf has nothing left to wait for. Device loop.
    func requestFinished(_ op: RequestOperation) {
        loop.assertInLoop()
        for w in admission.readyWaiters where w.dependent === op || w.dependent == nil { w.finish() }
    }

    /// Removes a request parked for the lock (a cancel, or its client left). Returns whether it
    /// was parked. Device loop.
    func unpark(_ op: RequestOperation) -> Bool {
        loop.assertInLoop()
        return admission.unpark(op)
    }

    // MARK: - Lock

    /// Grants the lock to `clientID` now if it is free (or already theirs), otherwise waits for
    /// it (see ``Lease/acquire(clientID:timeoutMs:leaseMs:granted:failed:)``). Requests already
    /// admitted keep their place; other clients' new requests wait. Device loop.
    func acquireLock(
        clientID: UInt64,
        timeoutMs: Int?,
        leaseMs: Int,
        granted: @escaping () -> Void,
        failed: @escaping (AccessoryError) -> Void
    ) {
        loop.assertInLoop()
        lease.acquire(clientID: clientID, timeoutMs: timeoutMs, leaseMs: leaseMs, granted: granted, failed: failed)
    }

    /// Releases the lock if `clientID` holds it. Device loop.
    func unlock(clientID: UInt64) throws(AccessoryError) {
        loop.assertInLoop()
        try lease.unlock(clientID: clientID)
    }

    /// A lease ran out: the lock is released next. Device loop.
    func leaseExpired(clientID: UInt64) {
        loop.assertInLoop()
        log(.notice, "\(name): the lock of client \(clientID) expired")
    }

    /// The lock was released (and handed to the next waiter, if any): the parked requests are
    /// admitted again, in order (the new holder's run; the others park again or fail). Device
    /// loop.
    func lockReleased() {
        loop.assertInLoop()
        for p in admission.releaseParked() { submit(p.item, waitDeadline: p.until) }
        onMaybeIdle?(self)
    }

    /// The accessory is going away: lock waiters and parked requests fail with `error`.
    func failLockWaiters(_ error: AccessoryError) {
        lease.failWaiters(error)
        for p in admission.releaseParked() { p.item.replyWithoutRunning(error) }
    }

    /// A client left: its lock is released and its pending lock requests dropped. Device loop.
    func clientLeft(_ clientID: UInt64) {
        loop.assertInLoop()
        lease.stopWaiting(clientID)
        if rawSession?.origin.clientID == clientID { endRawSession(disconnecting: nil) }
        if lease.holder == clientID { lease.release() }
    }
}
