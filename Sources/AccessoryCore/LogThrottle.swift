import IOLoop

/// Lets a repeated log line through at most once per `interval`, counting the ones held back:
/// refusals that a local client can cause at will (a guessed attach-session token) are logged
/// without letting that client fill the log. The control server keeps one of its own for the
/// connections it refuses.
///
/// Threading: a value owned by its accessory; device loop only.
struct LogThrottle {
    let interval: Duration
    private var lastEmitted: UInt64?
    private var suppressed = 0

    init(interval: Duration) { self.interval = interval }

    /// Whether to log now (at `now`, nanoseconds), and how many were held back since the last.
    mutating func admit(now: UInt64) -> (emit: Bool, suppressed: Int) {
        if let last = lastEmitted, now &- last < interval.nanosecondsClamped {
            suppressed += 1
            return (false, 0)
        }
        lastEmitted = now
        defer { suppressed = 0 }
        return (true, suppressed)
    }
}
