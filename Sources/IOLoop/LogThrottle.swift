/// Lets a repeated log line through at most once per `interval`, counting the ones held back:
/// refusals a local client can cause at will (connections over a limit, refused batches, a
/// guessed attach-session token) are logged without letting that client fill the log. Here, in
/// the loop module, because the control server and the accessories both keep some, each on the
/// loop it runs on.
///
/// Threading: a value; used on its owner's loop thread only.
package struct LogThrottle {
    package let interval: Duration
    private var lastEmitted: UInt64?
    private var suppressed = 0

    package init(interval: Duration) { self.interval = interval }

    /// Whether to log now (at `now`, nanoseconds), and how many were held back since the last.
    package mutating func admit(now: UInt64) -> (emit: Bool, suppressed: Int) {
        if let last = lastEmitted, now &- last < interval.nanosecondsClamped {
            suppressed += 1
            return (false, 0)
        }
        lastEmitted = now
        defer { suppressed = 0 }
        return (true, suppressed)
    }
}
