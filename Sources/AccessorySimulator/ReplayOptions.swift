/// How `accessory-sim --replay` plays a recording back (docs/replay.md).
///
/// Threading: a value. Any thread.
package struct ReplayOptions: Sendable, Equatable {
    /// How fast recorded delays pass.
    ///
    /// Threading: a value. Any thread.
    package enum Pace: Sendable, Equatable {
        /// Every reply and unsolicited frame at its recorded delay.
        case recorded
        /// No delays: replies at once, unsolicited frames as soon as they are due in order.
        case fast
        /// Delays divided by this factor (`x2` is twice as fast).
        case factor(Double)

        /// Parses `recorded`, `fast` or `xN` (N > 0, e.g. `x2`, `x0.5`).
        package init?(argument: String) {
            switch argument {
            case "recorded": self = .recorded
            case "fast": self = .fast
            default:
                guard argument.hasPrefix("x"), let value = Double(argument.dropFirst()), value > 0, value.isFinite
                else { return nil }
                self = .factor(value)
            }
        }

        /// A recorded delay as it passes at this pace.
        package func scale(microseconds: Int64) -> Duration {
            switch self {
            case .recorded: return .microseconds(microseconds)
            case .fast: return .zero
            case .factor(let factor): return .microseconds(Int64(Double(microseconds) / factor))
            }
        }
    }

    /// What a request asked more often than the recording holds gets.
    ///
    /// Threading: a value. Any thread.
    package enum AfterLast: String, Sendable, Equatable, CaseIterable {
        /// The last recorded reply again.
        case repeatLast = "repeat"
        /// Nothing: it is a mismatch.
        case mismatch
    }

    /// What unsolicited frames' recorded times are measured from.
    ///
    /// Threading: a value. Any thread.
    package enum UnsolicitedClock: String, Sendable, Equatable, CaseIterable {
        /// The start of the replay (a GPS stream: sentences at their recorded times).
        case start
        /// The request recorded before them (a `RING` the device sent 2 s after `ATD`): played that
        /// long after the program sends the matching request. Those before any request are
        /// timed from the start.
        case request
    }

    package var pace: Pace
    package var afterLast: AfterLast
    package var unsolicitedClock: UnsolicitedClock
    /// On a mismatch, answer with the reply of the nearest recorded request (still counted).
    package var lenient: Bool
    /// Regular expressions (``ByteRegex``) that make differing requests equal: a request and a
    /// recorded one that the same expression matches whole are the same request.
    package var rules: [ReplayRule]

    package init(
        pace: Pace = .recorded,
        afterLast: AfterLast = .repeatLast,
        unsolicitedClock: UnsolicitedClock = .start,
        lenient: Bool = false,
        rules: [ReplayRule] = []
    ) {
        self.pace = pace
        self.afterLast = afterLast
        self.unsolicitedClock = unsolicitedClock
        self.lenient = lenient
        self.rules = rules
    }
}

/// One matching rule of a replay's rules file: a regular expression over a whole request, and
/// the line it was on.
///
/// Threading: a value. Any thread.
package struct ReplayRule: Sendable, Equatable {
    package var pattern: String
    package var line: Int

    package init(pattern: String, line: Int = 0) {
        self.pattern = pattern
        self.line = line
    }
}
