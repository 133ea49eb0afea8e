/// A moment of the local wall clock, to the millisecond, as the terminal shows it.
///
/// Threading: a value. Any thread.
package struct WallTime: Sendable, Hashable {
    package var year: Int
    package var month: Int
    package var day: Int
    package var hour: Int
    package var minute: Int
    package var second: Int
    package var millisecond: Int

    package init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.millisecond = millisecond
    }

    /// `13:20:01.042`: what starts each line on the screen with timestamps on.
    package var timeOfDay: String {
        Self.pad(hour, 2) + ":" + Self.pad(minute, 2) + ":" + Self.pad(second, 2) + "." + Self.pad(millisecond, 3)
    }

    /// `2026-11-25 13:20:01.042`: what starts each line of a session log.
    package var dateAndTime: String {
        Self.pad(year, 4) + "-" + Self.pad(month, 2) + "-" + Self.pad(day, 2) + " " + timeOfDay
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
