/// Calendar dates and times in UTC from microseconds since the Unix epoch, without Foundation:
/// `2026-11-25T12:16:35.123456` (the caller adds `Z` or an offset).
///
/// Threading: stateless. Any thread.
package enum UTCTime {
    /// `YYYY-MM-DD<separator>hh:mm:ss.ffffff` with `fractionDigits` (0 ... 6) digits of the
    /// second. `microseconds` may also be a local time (UTC plus the zone's offset).
    package static func append(
        microseconds: Int64,
        fractionDigits: Int,
        separator: UInt8,
        to buffer: inout [UInt8]
    ) {
        let (seconds, fraction) = floorDivision(microseconds, 1_000_000)
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        appendDigits(year, count: 4, to: &buffer)
        buffer.append(UInt8(ascii: "-"))
        appendDigits(month, count: 2, to: &buffer)
        buffer.append(UInt8(ascii: "-"))
        appendDigits(day, count: 2, to: &buffer)
        buffer.append(separator)
        appendDigits(secondOfDay / 3_600, count: 2, to: &buffer)
        buffer.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay / 60 % 60, count: 2, to: &buffer)
        buffer.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay % 60, count: 2, to: &buffer)
        let digits = min(max(fractionDigits, 0), 6)
        if digits > 0 {
            buffer.append(UInt8(ascii: "."))
            var divisor: Int64 = 1
            for _ in digits..<6 { divisor *= 10 }
            appendDigits(fraction / divisor, count: digits, to: &buffer)
        }
    }

    /// As ``append(microseconds:fractionDigits:separator:to:)``, as a string.
    package static func string(microseconds: Int64, fractionDigits: Int = 6, separator: UInt8 = UInt8(ascii: "T"))
        -> String
    {
        var buffer: [UInt8] = []
        append(microseconds: microseconds, fractionDigits: fractionDigits, separator: separator, to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Quotient rounded down and a non-negative remainder (instants before 1970 are negative).
    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let quotient = value / divisor
        let remainder = value % divisor
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    /// The proleptic Gregorian date of a day number (days since 1970-01-01): Howard Hinnant's
    /// `civil_from_days`, exact over the whole range of years this prints.
    static func civilDate(daysSinceEpoch: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// `value` in decimal, zero-padded to `count` digits (more if it needs them). No allocation
    /// beyond the buffer's own growth: notifications are encoded on the device loop.
    private static func appendDigits(_ value: Int64, count: Int, to buffer: inout [UInt8]) {
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        var width = 1
        var power: UInt64 = 10
        while width < 19 && magnitude >= power {
            width += 1
            power *= 10
        }
        let total = max(count, width)
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: total))
        var rest = magnitude
        var index = start + total - 1
        while rest > 0 {
            buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            index -= 1
        }
    }
}
