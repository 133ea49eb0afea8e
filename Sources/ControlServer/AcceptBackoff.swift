/// The pause before `accept` is tried again after it failed for lack of descriptors or memory
/// (`EMFILE`, `ENFILE`, `ENOBUFS`, `ENOMEM`): the listening socket is level-triggered, so retrying
/// at once would spin. Starts at `initial`, doubles up to `maximum`, resets on success.
///
/// Threading: a value owned by the server; control loop only.
struct AcceptBackoff {
    let initial: Duration
    let maximum: Duration
    /// Failures since the last successful accept.
    private(set) var failures = 0
    private var next: Duration

    init(initial: Duration, maximum: Duration) {
        self.initial = initial
        self.maximum = maximum
        self.next = initial
    }

    /// Records a failure; returns how long to pause.
    mutating func failed() -> Duration {
        failures += 1
        let delay = next
        next = min(next * 2, maximum)
        return delay
    }

    /// Records a success; returns the failures it ends.
    mutating func succeeded() -> Int {
        defer {
            failures = 0
            next = initial
        }
        return failures
    }
}
