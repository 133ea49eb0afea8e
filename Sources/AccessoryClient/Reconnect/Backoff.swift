/// The waits between attempts to reach a daemon that went away: the first step 50 ms, doubling
/// up to 1 s; each wait drawn between half and all of the step (jitter: the clients of one
/// daemon do not all knock at the same instant); no wait once `total` has passed since the
/// round began.
///
/// Threading: a value, owned by the one task that reconnects.
struct Backoff {
    static let firstStep: Duration = .milliseconds(50)
    static let longestStep: Duration = .seconds(1)

    private let deadline: ContinuousClock.Instant
    private var step = Backoff.firstStep

    init(total: Duration) {
        deadline = .now + total
    }

    /// How long to wait before the next attempt, or nil when the round is over.
    mutating func nextWait() -> Duration? {
        let remaining = deadline - .now
        guard remaining > .zero else { return nil }
        let wait = step * Double.random(in: 0.5...1.0)
        step = min(step * 2, Backoff.longestStep)
        return min(wait, remaining)
    }
}
