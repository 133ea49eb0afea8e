/// A run mode: the set of sources a loop waits on while it runs in that mode (CFRunLoop's modes).
///
/// A source, timer or observer registered in `.common` belongs to every mode in the loop's
/// common-modes set (initially just `.default`). A source registered only in another mode does
/// not fire while the loop runs in `.default`. Any thread (a value).
public struct RunMode: Hashable, Sendable, CustomStringConvertible {
    public let name: String

    public init(_ name: String) { self.name = name }

    /// The mode a dedicated loop thread runs in.
    public static let `default` = RunMode("default")
    /// A pseudo-mode meaning "every mode in the common set"; never run directly.
    public static let common = RunMode("common")

    public var description: String { name }
}

/// A point on the loop's monotonic clock, in nanoseconds. Any thread (a value).
public struct LoopInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: UInt64

    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    public static func < (a: LoopInstant, b: LoopInstant) -> Bool { a.nanoseconds < b.nanoseconds }

    public static func + (a: LoopInstant, d: Duration) -> LoopInstant {
        LoopInstant(nanoseconds: a.nanoseconds &+ d.nanosecondsClamped)
    }

    /// The duration from `b` to `a`, zero if `b` is later.
    public static func - (a: LoopInstant, b: LoopInstant) -> Duration {
        a.nanoseconds > b.nanoseconds ? .nanoseconds(Int64(a.nanoseconds - b.nanoseconds)) : .zero
    }

    public var description: String { "\(Double(nanoseconds) / 1e9)s" }
}

extension Duration {
    /// Whole nanoseconds, clamped to 0 for negative durations.
    public var nanosecondsClamped: UInt64 {
        let (s, atto) = components
        if s < 0 { return 0 }
        return UInt64(s) &* 1_000_000_000 &+ UInt64(atto / 1_000_000_000)
    }

    /// Milliseconds as a Double, for reports.
    public var milliseconds: Double {
        let (s, atto) = components
        return Double(s) * 1000 + Double(atto) / 1e15
    }
}
