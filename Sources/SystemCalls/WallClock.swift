import Glibc

/// The wall clock (`CLOCK_REALTIME`): for timestamps people read, such as a traffic trace's.
/// Intervals and deadlines use the loop's monotonic clock instead; the wall clock may jump.
///
/// Any thread (stateless).
public enum WallClock {
    /// Microseconds since the Unix epoch (1970-01-01T00:00:00Z). Through the vDSO, no system
    /// call. The corresponding C function is `clock_gettime`.
    @inline(never)
    public static func microsecondsSinceEpoch() -> Int64 {
        var now = timespec()
        // CLOCK_REALTIME cannot fail with a valid pointer.
        _ = clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec / 1_000)
    }

    /// The local time zone's offset from UTC, in seconds, at the instant `microseconds` after the
    /// epoch (east is positive; it changes with daylight saving time). The corresponding C
    /// function is `localtime_r` (its `tm_gmtoff`).
    public static func localOffsetSeconds(atMicroseconds microseconds: Int64) -> Int {
        var seconds = time_t(microseconds / 1_000_000)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return 0 }
        return Int(parts.tm_gmtoff)
    }
}
