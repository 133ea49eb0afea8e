import Glibc

extension WallClock {
    /// Local time now, broken down, to the millisecond (for a terminal's timestamps). The
    /// corresponding C functions are `clock_gettime(CLOCK_REALTIME)` and `localtime_r`.
    public static func localNow() -> LocalTime {
        var now = timespec()
        // CLOCK_REALTIME cannot fail with a valid pointer.
        _ = clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        _ = localtime_r(&seconds, &parts)
        return LocalTime(
            year: Int(parts.tm_year) + 1900,
            month: Int(parts.tm_mon) + 1,
            day: Int(parts.tm_mday),
            hour: Int(parts.tm_hour),
            minute: Int(parts.tm_min),
            second: Int(parts.tm_sec),
            millisecond: Int(now.tv_nsec / 1_000_000)
        )
    }

    /// A broken-down local time. A value. Any thread.
    public struct LocalTime: Sendable, Hashable {
        public var year, month, day, hour, minute, second, millisecond: Int
    }
}
