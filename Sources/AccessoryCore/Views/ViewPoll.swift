import IOLoop

/// The views' fallback poll, for the opens the inotify watch cannot see (no inotify left, a watch
/// refused): every `interval`, a look at the views nobody has open. One repeating timer; the look
/// says whether anything is left to look at, and the poll stops when nothing is.
///
/// Its timer goes through a ``LoopScheduler``, so its tests run on virtual time.
///
/// Device loop only.
final class ViewPoll {
    let scheduler: any LoopScheduler
    let interval: Duration
    private var timer: LoopTimer?

    init(scheduler: any LoopScheduler, interval: Duration) {
        self.scheduler = scheduler
        self.interval = interval
    }

    /// Whether the poll runs.
    var isRunning: Bool { timer != nil }

    /// Starts polling unless it runs: `look` every `interval` from now, until it returns false
    /// (nothing left to look at) or ``stop()``.
    func start(_ look: @escaping () -> Bool) {
        guard timer == nil else { return }
        timer = scheduler.scheduleTimer(after: interval, repeating: interval) { [weak self] in
            if !look() { self?.stop() }
        }
    }

    /// Stops polling, if it runs.
    func stop() {
        timer?.cancel()
        timer = nil
    }
}
