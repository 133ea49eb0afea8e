import IOLoop

/// What becomes of a request when it reaches its accessory, and the requests parked behind
/// another client's lock.
///
/// A request is refused at once when the accessory cannot take it, parked while another client
/// holds the lock, queued otherwise. One that asked to wait (`wait_ms`) for an accessory that is
/// not ready is queued behind a wait for readiness; one that did not fails fast with `device
/// unavailable`. Likewise for another client's lock: only a request with `wait_ms` is parked;
/// one without fails at once, naming the holder. Parked requests count against `queue_depth`
/// with the queued ones: without that, one client could park without bound behind another's
/// lock.
///
/// `Item` is what is parked (the accessory's request operation; the tests' stand-in). Its
/// timers go through a ``LoopScheduler``, so its tests run on virtual time.
///
/// Device loop only.
final class Admission<Item: AnyObject> {
    /// What becomes of one arriving request. A value. Any thread.
    enum Verdict: Equatable {
        /// The accessory is disabled or shutting down: `device unavailable`.
        case closed
        /// Another client holds the lock and the request did not ask to wait (or its wait is
        /// over): `locked`, naming the holder.
        case locked(holder: UInt64)
        /// Parked until the lock is released, or `until` (its `wait_ms`) passes.
        case park(until: LoopInstant)
        /// Not ready and the request did not ask to wait (or its wait is over): `device
        /// unavailable`.
        case unavailable
        /// The queue (with the parked requests, for one that would park) is at `queue_depth`.
        case queueFull
        /// Queued; with `awaitingReadyUntil`, behind a wait for the accessory to become ready.
        case enqueue(awaitingReadyUntil: LoopInstant?)
    }

    /// The accessory, as a request arriving finds it.
    struct Conditions {
        /// Enabled and not shut down.
        var open: Bool
        /// The client holding the lock, if any.
        var holder: UInt64?
        /// Ready for requests (a resync counts as ready: requests queue behind it).
        var ready: Bool
        /// Requests queued or executing.
        var queued: Int
    }

    /// A request held outside the queue while another client holds the lock.
    struct Parked {
        let item: Item
        /// The end of its `wait_ms`, kept for its admission once the lock is released.
        let until: LoopInstant
        let timer: LoopTimer
    }

    let scheduler: any LoopScheduler
    /// `limits.queue_depth`.
    let queueDepth: Int
    /// Told when a parked request's wait ran out, after it left the parked ones.
    var onParkExpired: (Item) -> Void = { _ in }

    private(set) var parked: [Parked] = []
    /// The waits in the queue for the accessory to become ready (`wait_ms`).
    var readyWaiters: [AwaitReadyOperation] = []

    init(scheduler: any LoopScheduler, queueDepth: Int) {
        self.scheduler = scheduler
        self.queueDepth = queueDepth
    }

    /// The verdict on a request from `client` whose wait (if it asked for one) ends at
    /// `waitDeadline`. The checks come in this order: closed, another's lock, not ready, a full
    /// queue.
    func verdict(client: UInt64, waitDeadline: LoopInstant?, _ c: Conditions) -> Verdict {
        guard c.open else { return .closed }
        let waiting = waitDeadline.flatMap { $0 > scheduler.now ? $0 : nil }
        if let holder = c.holder, holder != client {
            guard let waiting else { return .locked(holder: holder) }
            return c.queued + parked.count >= queueDepth ? .queueFull : .park(until: waiting)
        }
        if !c.ready && waiting == nil { return .unavailable }
        if c.queued >= queueDepth { return .queueFull }
        return .enqueue(awaitingReadyUntil: c.ready ? nil : waiting)
    }

    /// Parks `item` until ``releaseParked()`` or `until`, when ``onParkExpired`` is told.
    func park(_ item: Item, until: LoopInstant) {
        scheduler.assertInLoop()
        let timer = scheduler.scheduleTimer(after: max(.zero, until - scheduler.now)) { [weak self, weak item] in
            guard let self, let item else { return }
            if unpark(item) { onParkExpired(item) }
        }
        parked.append(Parked(item: item, until: until, timer: timer))
    }

    /// Removes `item` from the parked ones (a cancel, its client left, its wait ran out).
    /// Returns whether it was parked.
    func unpark(_ item: Item) -> Bool {
        scheduler.assertInLoop()
        guard let i = parked.firstIndex(where: { $0.item === item }) else { return false }
        parked[i].timer.cancel()
        parked.remove(at: i)
        return true
    }

    /// Every parked request, in arrival order, with the end of its wait; none is parked after.
    /// The lock was released: each is to be admitted again.
    func releaseParked() -> [(item: Item, until: LoopInstant)] {
        scheduler.assertInLoop()
        let released = parked
        parked.removeAll()
        return released.map {
            $0.timer.cancel()
            return ($0.item, $0.until)
        }
    }
}
