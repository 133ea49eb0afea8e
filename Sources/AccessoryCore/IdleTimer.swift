import IOLoop

/// Says when nothing happened for `limit` (an `attach` session's `limits.attach_idle_ms`).
///
/// One timer, re-armed from the last activity when it fires: recording activity is a store of
/// the time, no timer work per byte. `onIdle` is told once; then the timer is done.
///
/// Its timer goes through a ``LoopScheduler``, so its tests run on virtual time.
///
/// Device loop only.
final class IdleTimer {
    let scheduler: any LoopScheduler
    let limit: Duration
    /// When there was activity last (or the timer started).
    private(set) var lastActivity: LoopInstant
    private var timer: LoopTimer?

    init(scheduler: any LoopScheduler, limit: Duration) {
        self.scheduler = scheduler
        self.limit = limit
        self.lastActivity = scheduler.now
    }

    /// Whether the timer runs (started, not stopped, not yet told idle).
    var isRunning: Bool { timer != nil }

    /// Starts counting from now: `onIdle` is told once nothing happened for `limit`.
    func start(onIdle: @escaping () -> Void) {
        scheduler.assertInLoop()
        lastActivity = scheduler.now
        arm(after: limit, onIdle)
    }

    /// Something happened: the idle time counts from now.
    func activity() {
        lastActivity = scheduler.now
    }

    /// Stops the timer; `onIdle` will not be told.
    func stop() {
        scheduler.assertInLoop()
        timer?.cancel()
        timer = nil
    }

    private func arm(after delay: Duration, _ onIdle: @escaping () -> Void) {
        timer = scheduler.scheduleTimer(after: delay) { [weak self] in
            guard let self else { return }
            let idle = scheduler.now - lastActivity
            guard idle >= limit else { return arm(after: limit - idle, onIdle) }
            timer = nil
            onIdle()
        }
    }
}
