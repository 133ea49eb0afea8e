import IOLoop

/// An accessory's one response-deadline timer: it fires no later than the instant the executing
/// request gives up waiting for its answer, and then tells ``onPassed`` if that instant has
/// come.
///
/// Why one timer and not one per request: a request usually ends long before its deadline, and
/// scheduling and cancelling a timer for each cost a fifth of a request's instructions
/// (bench/profile/request-profile.py). The timer is moved only to an earlier instant; when it
/// fires early (the request it was set for has ended), it asks ``currentDue`` for the deadline of
/// the request executing then and re-arms for it. With a steady timeout that is one wake-up per
/// timeout period while busy, none while idle.
///
/// Its timer goes through a ``LoopScheduler``, so its tests run on virtual time.
///
/// Device loop only.
final class ResponseDeadline {
    let scheduler: any LoopScheduler
    /// The deadline of the request executing now, if any.
    var currentDue: () -> LoopInstant? = { nil }
    /// The executing request's deadline has passed.
    var onPassed: () -> Void = {}
    private var timer: LoopTimer?

    init(scheduler: any LoopScheduler) {
        self.scheduler = scheduler
    }

    /// When the timer fires next, if it is set.
    var firesAt: LoopInstant? {
        guard let timer, timer.isValid else { return nil }
        return timer.deadline
    }

    /// Makes the timer fire no later than `due` (it is left alone when it fires sooner).
    func watch(_ due: LoopInstant) {
        if let t = timer, t.isValid, t.deadline <= due { return }
        timer?.cancel()
        timer = scheduler.scheduleTimer(at: due, repeating: nil, modes: [.common]) { [weak self] in
            self?.fired()
        }
    }

    private func fired() {
        timer = nil
        guard let due = currentDue() else { return }
        if scheduler.now >= due {
            onPassed()
        } else {
            watch(due)
        }
    }
}
