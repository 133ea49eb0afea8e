/// `log:` — logging.
///
/// Threading: a value. Any thread.
public struct LogSettings: Sendable, Equatable {
    public var level: LogLevel

    public init(level: LogLevel = .info) { self.level = level }
}

/// The log levels (swift-log's names).
///
/// Threading: a value. Any thread.
public enum LogLevel: String, Sendable, CaseIterable {
    case trace
    case debug
    case info
    case notice
    case warning
    case error
    case critical
}
