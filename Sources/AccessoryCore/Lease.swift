import IOLoop

/// An accessory's exclusive lock: who holds it, until when, and the `lock` requests waiting
/// their turn.
///
/// Every `lock` has a lease: when it runs out the lock is released as if the holder had
/// unlocked, so a client that forgets its lock (or hangs) cannot keep an accessory forever. An
/// `attach` holds the lock without a lease for its whole raw session (its idle limit ends it
/// instead). Waiters are served in arrival order, one wait per client (so they stay bounded by
/// the clients), each for at most its own timeout.
///
/// The transitions, each made in one place (``grant(to:leaseMs:)``, ``attach(by:)``,
/// ``release()``):
///
///     free ──grant──▶ held(by, until) ──grant (same client: a new lease)──▶ held(by, until')
///     free / held ──attach──▶ attached(by)
///     held / attached ──release (unlock, lease expiry, holder gone)──▶ free ──▶ next waiter, if any
///
/// Its timers go through a ``LoopScheduler``, so its tests run on virtual time.
///
/// Device loop only.
final class Lease {
    /// Who holds the lock. A value. Any thread.
    enum State: Equatable {
        case free
        /// Held by a `lock` until the lease ends.
        case held(by: UInt64, until: LoopInstant)
        /// Held by an `attach`ed client for its raw session, without a lease.
        case attached(by: UInt64)

        /// The client holding the lock, if any.
        var holder: UInt64? {
            switch self {
            case .free: nil
            case .held(let client, _), .attached(let client): client
            }
        }
    }

    /// A `lock` request waiting its turn.
    private struct Waiter {
        let clientID: UInt64
        let leaseMs: Int
        let granted: () -> Void
        let failed: (AccessoryError) -> Void
        var timer: LoopTimer?
    }

    let scheduler: any LoopScheduler
    /// The accessory's name, for the errors.
    let device: String
    /// Told when a holder's lease ran out, just before the lock is released (and handed on).
    var onExpired: (UInt64) -> Void = { _ in }
    /// Told after every release (the lock may be free, or the next waiter's): requests parked
    /// for it may be admitted now.
    var onReleased: () -> Void = {}

    private(set) var state = State.free
    private var leaseTimer: LoopTimer?
    private var waiters: [Waiter] = []

    init(scheduler: any LoopScheduler, device: String) {
        self.scheduler = scheduler
        self.device = device
    }

    /// The client holding the lock, if any.
    var holder: UInt64? { state.holder }

    /// The clients waiting for the lock, in the order they will get it.
    var waitingClients: [UInt64] { waiters.map(\.clientID) }

    /// Grants the lock to `clientID` now if it is free (or already theirs: the lease starts
    /// again), otherwise queues the request until release, lease expiry or the holder leaving;
    /// gives up after `timeoutMs` with `wait expired`. A client already waiting for this lock is
    /// refused at once.
    func acquire(
        clientID: UInt64,
        timeoutMs: Int?,
        leaseMs: Int,
        granted: @escaping () -> Void,
        failed: @escaping (AccessoryError) -> Void
    ) {
        scheduler.assertInLoop()
        if state.holder == nil || state.holder == clientID {
            grant(to: clientID, leaseMs: leaseMs)
            granted()
            return
        }
        guard !waiters.contains(where: { $0.clientID == clientID }) else {
            failed(.alreadyWaitingForLock(device: device))
            return
        }
        var waiter = Waiter(clientID: clientID, leaseMs: leaseMs, granted: granted, failed: failed)
        if let timeoutMs {
            waiter.timer = scheduler.scheduleTimer(after: .milliseconds(timeoutMs)) { [weak self] in
                self?.waitExpired(clientID: clientID)
            }
        }
        waiters.append(waiter)
    }

    /// Releases the lock if `clientID` holds it; otherwise says why not.
    func unlock(clientID: UInt64) throws(AccessoryError) {
        scheduler.assertInLoop()
        guard state.holder == clientID else {
            throw state.holder == nil ? .notLocked(device: device) : .lockedByAnotherClient(device: device)
        }
        release()
    }

    /// `clientID`'s raw session holds the lock from now on, without a lease. A lock held by
    /// anyone is taken over: the `attach` was admitted to the queue before that lock was granted,
    /// and a raw session cannot share the accessory.
    func attach(by clientID: UInt64) {
        scheduler.assertInLoop()
        stopLeaseTimer()
        state = .attached(by: clientID)
    }

    /// The lock is free again; the first waiter, if any, gets it. Then ``onReleased``.
    func release() {
        scheduler.assertInLoop()
        stopLeaseTimer()
        state = .free
        if !waiters.isEmpty {
            let next = waiters.removeFirst()
            next.timer?.cancel()
            grant(to: next.clientID, leaseMs: next.leaseMs)
            next.granted()
        }
        onReleased()
    }

    /// `clientID` is gone: its wait, if any, ends without an answer.
    func stopWaiting(_ clientID: UInt64) {
        scheduler.assertInLoop()
        if let i = waiters.firstIndex(where: { $0.clientID == clientID }) {
            waiters[i].timer?.cancel()
            waiters.remove(at: i)
        }
    }

    /// `clientID` is gone: its wait ends without an answer, and the lock is released if it was
    /// theirs.
    func clientLeft(_ clientID: UInt64) {
        scheduler.assertInLoop()
        stopWaiting(clientID)
        if state.holder == clientID { release() }
    }

    /// Every waiter fails with `error` (the accessory is going away); the holder keeps the lock.
    func failWaiters(_ error: AccessoryError) {
        scheduler.assertInLoop()
        let failing = waiters
        waiters.removeAll()
        for w in failing {
            w.timer?.cancel()
            w.failed(error)
        }
    }

    private func grant(to clientID: UInt64, leaseMs: Int) {
        stopLeaseTimer()
        state = .held(by: clientID, until: scheduler.now + .milliseconds(leaseMs))
        leaseTimer = scheduler.scheduleTimer(after: .milliseconds(leaseMs)) { [weak self] in
            self?.leaseExpired(clientID: clientID)
        }
    }

    private func stopLeaseTimer() {
        leaseTimer?.cancel()
        leaseTimer = nil
    }

    private func leaseExpired(clientID: UInt64) {
        guard case .held(by: clientID, _) = state else { return }
        onExpired(clientID)
        release()
    }

    private func waitExpired(clientID: UInt64) {
        guard let i = waiters.firstIndex(where: { $0.clientID == clientID }) else { return }
        let w = waiters.remove(at: i)
        w.failed(.waitExpired(device: device, what: "the lock"))
    }
}
