import IOLoop

/// When to try opening an absent or failed device again: after `initial`, then twice as long
/// after each failed attempt, never longer than `maximum`; back to `initial` after a success or
/// when hot-plug says the device is there. At most one attempt is ever scheduled, so a device
/// that keeps failing costs one timer, never a busy loop.
///
/// Loop thread only.
final class ReopenSchedule {
    let scheduler: any LoopScheduler
    let initial: Duration
    let maximum: Duration
    /// The delay the next ``schedule(after:_:)`` without an explicit delay will use.
    private(set) var nextDelay: Duration
    private var timer: LoopTimer?

    init(scheduler: any LoopScheduler, initialMs: Int, maximumMs: Int) {
        self.scheduler = scheduler
        self.initial = .milliseconds(max(1, initialMs))
        self.maximum = .milliseconds(max(1, maximumMs))
        self.nextDelay = initial
    }

    var isScheduled: Bool { timer != nil }

    /// Schedules `attempt` after `delay`, or after the current back-off (which then doubles, up to
    /// the maximum). Does nothing while an attempt is already scheduled.
    func schedule(after delay: Duration? = nil, _ attempt: @escaping () -> Void) {
        scheduler.assertInLoop()
        guard timer == nil else { return }
        let wait = delay ?? nextDelay
        if delay == nil { nextDelay = min(maximum, nextDelay * 2) }
        timer = scheduler.scheduleTimer(after: wait) { [weak self] in
            self?.timer = nil
            attempt()
        }
    }

    /// Drops the scheduled attempt, if any.
    func cancel() {
        scheduler.assertInLoop()
        timer?.cancel()
        timer = nil
    }

    /// The device opened (or is known to be back): the next failure starts from `initial` again.
    func reset() {
        scheduler.assertInLoop()
        nextDelay = initial
    }
}
