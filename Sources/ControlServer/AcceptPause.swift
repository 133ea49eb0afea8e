import IOLoop

/// The listening socket's pause after `accept` failed for lack of descriptors or memory: the
/// socket is level-triggered, so it must stop being watched until a timer says to try again
/// (``AcceptBackoff`` gives how long). At most one pause is ever scheduled.
///
/// Its timer goes through a ``LoopScheduler``, so its tests run on virtual time.
///
/// Control loop only.
final class AcceptPause {
    let scheduler: any LoopScheduler
    private(set) var backoff: AcceptBackoff
    private var timer: LoopTimer?

    init(scheduler: any LoopScheduler, initial: Duration, maximum: Duration) {
        self.scheduler = scheduler
        self.backoff = AcceptBackoff(initial: initial, maximum: maximum)
    }

    /// Whether a pause is running (its `resume` not yet called).
    var isPaused: Bool { timer != nil }

    /// Failures since the last successful accept.
    var failures: Int { backoff.failures }

    /// `accept` failed: pauses for the next back-off delay (a pause already running is replaced)
    /// and calls `resume` when it is over. Returns the delay.
    func failed(resume: @escaping () -> Void) -> Duration {
        let delay = backoff.failed()
        timer?.cancel()
        timer = scheduler.scheduleTimer(after: delay) { [weak self] in
            self?.timer = nil
            resume()
        }
        return delay
    }

    /// `accept` succeeded: the next failure pauses for the initial delay again. Returns the
    /// failures this ends.
    func succeeded() -> Int {
        backoff.succeeded()
    }

    /// Drops the running pause without resuming (the server stops listening).
    func cancel() {
        timer?.cancel()
        timer = nil
    }
}
