import ControlProtocol
import IOLoop
import Operations

/// A request held outside the queue while another client holds the accessory's lock.
/// Device loop only.
struct ParkedRequest {
    let operation: RequestOperation
    var timer: LoopTimer?
    /// The end of the request's `wait_ms`, kept for its admission once the lock is released.
    var waitDeadline: LoopInstant?

    func fail(_ error: AccessoryError) {
        timer?.cancel()
        operation.replyWithoutRunning(error)
    }
}

/// An accessory's exclusive lease. Device loop only.
struct LockState {
    struct Waiter {
        let clientID: UInt64
        let leaseMs: Int?
        let granted: () -> Void
        let failed: (AccessoryError) -> Void
        var timer: LoopTimer?
    }

    var holder: UInt64?
    var leaseTimer: LoopTimer?
    /// Other clients' requests, admitted in order when the lock is released.
    var parked: [ParkedRequest] = []
    /// `lock` requests waiting their turn.
    var waiters: [Waiter] = []
}

extension Accessory {
    /// Admits a request: refused at once when the accessory cannot take it, parked while another
    /// client holds the lock, queued otherwise. A request that asked to wait (`wait_ms`) for an
    /// accessory that is not ready is queued with an ``AccessoryReadyCondition``; one that did not
    /// fails fast with `device unavailable`. Likewise for another client's lock: only a request
    /// with `wait_ms` is parked (within `queue_depth`); one without fails at once, naming the
    /// holder. Device loop.
    func submit(_ op: RequestOperation, waitMs: Int?) {
        submit(op, waitDeadline: waitMs.flatMap { $0 > 0 ? loop.now + .milliseconds($0) : nil })
    }

    private func submit(_ op: RequestOperation, waitDeadline: LoopInstant?) {
        loop.preconditionInLoop()
        guard settings.enabled, !isShutDown else {
            op.replyWithoutRunning(.unavailable(device: name, state: .disabled, reason: stateReason))
            return
        }
        if let holder = lock.holder, holder != op.origin.clientID {
            guard let waitDeadline, waitDeadline > loop.now else {
                op.replyWithoutRunning(.locked(device: name, holder: holder))
                return
            }
            park(op, waitDeadline: waitDeadline)
            return
        }
        if !isReadyForRequests {
            guard let waitDeadline, waitDeadline > loop.now else {
                op.replyWithoutRunning(.unavailable(device: name, state: reportedState, reason: reportedReason))
                return
            }
            op.addCondition(AccessoryReadyCondition(accessory: self, deadline: waitDeadline))
        }
        enqueue(op)
        if let waitDeadline { boundWaitBehindResync(op, until: waitDeadline) }
    }

    private func enqueue(_ op: RequestOperation) {
        if queue.operationCount >= limits.queueDepth {
            op.replyWithoutRunning(.queueFull(device: name, depth: limits.queueDepth))
            return
        }
        queue.addOperation(op)
    }

    /// Holds a request until the lock is released (or its `wait_ms` runs out). Parked requests
    /// count against `queue_depth` with the queued ones: without that, one client could park
    /// without bound behind another's lock.
    private func park(_ op: RequestOperation, waitDeadline: LoopInstant) {
        if queue.operationCount + lock.parked.count >= limits.queueDepth {
            op.replyWithoutRunning(.queueFull(device: name, depth: limits.queueDepth))
            return
        }
        var parked = ParkedRequest(operation: op, waitDeadline: waitDeadline)
        parked.timer = loop.scheduleTimer(after: max(.zero, waitDeadline - loop.now)) { [link, weak op] in
            guard let op else { return }
            link.accessory?.parkedWaitExpired(op)
        }
        lock.parked.append(parked)
    }

    private func parkedWaitExpired(_ op: RequestOperation) {
        if let i = lock.parked.firstIndex(where: { $0.operation === op }) {
            lock.parked.remove(at: i)
            op.replyWithoutRunning(.waitExpired(device: name, what: "the lock to be released"))
        }
    }

    /// Now ready: the waits in the queue end, so their requests go on, in order.
    func admitReadyWaiters() {
        for w in readyWaiters { w.finish() }
    }

    /// A request finished (answered, cancelled, its client gone): a wait in the queue on its
    /// behalf has nothing left to wait for. Device loop.
    func requestFinished(_ op: RequestOperation) {
        for w in readyWaiters where w.dependent === op || w.dependent == nil { w.finish() }
    }

    /// Removes a request parked for the lock (a cancel, or its client left). Returns whether it
    /// was parked. Device loop.
    func unpark(_ op: RequestOperation) -> Bool {
        guard let i = lock.parked.firstIndex(where: { $0.operation === op }) else { return false }
        lock.parked[i].timer?.cancel()
        lock.parked.remove(at: i)
        return true
    }

    // MARK: - Lock

    /// Grants the lock to `clientID` now if it is free (or already theirs), otherwise queues the
    /// request until release, lease expiry or the holder leaving; gives up after `timeoutMs`.
    /// Requests already admitted keep their place; other clients' new requests wait. Device loop.
    func acquireLock(
        clientID: UInt64,
        timeoutMs: Int?,
        leaseMs: Int?,
        granted: @escaping () -> Void,
        failed: @escaping (AccessoryError) -> Void
    ) {
        if lock.holder == nil || lock.holder == clientID {
            grant(to: clientID, leaseMs: leaseMs)
            granted()
            return
        }
        // One wait per client and accessory: so the waiters stay bounded by the clients.
        guard !lock.waiters.contains(where: { $0.clientID == clientID }) else {
            failed(.alreadyWaitingForLock(device: name))
            return
        }
        var waiter = LockState.Waiter(clientID: clientID, leaseMs: leaseMs, granted: granted, failed: failed)
        if let timeoutMs {
            waiter.timer = loop.scheduleTimer(after: .milliseconds(timeoutMs)) { [link] in
                link.accessory?.lockWaitExpired(clientID: clientID)
            }
        }
        lock.waiters.append(waiter)
    }

    private func lockWaitExpired(clientID: UInt64) {
        guard let i = lock.waiters.firstIndex(where: { $0.clientID == clientID }) else { return }
        let w = lock.waiters.remove(at: i)
        w.failed(.waitExpired(device: name, what: "the lock"))
    }

    private func grant(to clientID: UInt64, leaseMs: Int?) {
        lock.holder = clientID
        lock.leaseTimer?.cancel()
        lock.leaseTimer = nil
        if let leaseMs {
            lock.leaseTimer = loop.scheduleTimer(after: .milliseconds(leaseMs)) { [link] in
                link.accessory?.leaseExpired(clientID: clientID)
            }
        }
    }

    private func leaseExpired(clientID: UInt64) {
        guard lock.holder == clientID else { return }
        log(.notice, "\(name): the lock of client \(clientID) expired")
        releaseLock()
    }

    /// Releases the lock if `clientID` holds it. Device loop.
    func unlock(clientID: UInt64) throws(AccessoryError) {
        guard lock.holder == clientID else {
            throw lock.holder == nil ? .notLocked(device: name) : .lockedByAnotherClient(device: name)
        }
        releaseLock()
    }

    /// Hands the lock to the next waiter, or admits everyone's parked requests.
    func releaseLock() {
        lock.holder = nil
        lock.leaseTimer?.cancel()
        lock.leaseTimer = nil
        if !lock.waiters.isEmpty {
            let next = lock.waiters.removeFirst()
            next.timer?.cancel()
            grant(to: next.clientID, leaseMs: next.leaseMs)
            next.granted()
        }
        // Admit parked requests that may now run (the new holder's, or all if none).
        let parked = lock.parked
        lock.parked.removeAll()
        for p in parked {
            p.timer?.cancel()
            submit(p.operation, waitDeadline: p.waitDeadline)
        }
        onMaybeIdle?(self)
    }

    func failLockWaiters(_ error: AccessoryError) {
        for w in lock.waiters {
            w.timer?.cancel()
            w.failed(error)
        }
        lock.waiters.removeAll()
        for p in lock.parked { p.fail(error) }
        lock.parked.removeAll()
    }

    /// A client left: its lock is released and its pending lock requests dropped. Device loop.
    func clientLeft(_ clientID: UInt64) {
        if let i = lock.waiters.firstIndex(where: { $0.clientID == clientID }) {
            lock.waiters[i].timer?.cancel()
            lock.waiters.remove(at: i)
        }
        if rawSession?.origin.clientID == clientID { endRawSession(disconnecting: nil) }
        if lock.holder == clientID { releaseLock() }
    }
}
