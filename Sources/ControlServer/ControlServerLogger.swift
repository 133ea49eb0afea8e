/// Where the control server's log lines go: a closure the daemon supplies (it forwards them to its
/// own logger and so to journald), so that this module needs no logging dependency.
///
/// Threading: a value; any thread. The sink is called on the control loop thread and must be quick
/// (it must not block on, or synchronously wait for, the control loop).
package struct ControlServerLogger: Sendable {
    /// How much a line matters, in swift-log's order (and its names).
    ///
    /// Threading: a value. Any thread.
    package enum Level: Int, Sendable, Comparable, CaseIterable {
        /// Per-connection routine: accepted, closed by the client.
        case debug
        /// The listener started or stopped.
        case info
        /// Something worth a look that is handled: accepting resumed after a failure.
        case notice
        /// A client broke a limit and was dropped or refused; a request line too long; a slow reader.
        case warning
        /// The server cannot do its job right now (accept failing for lack of descriptors).
        case error

        package static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    /// Lines below this level are not even formatted.
    package let minimumLevel: Level
    private let sink: @Sendable (Level, String) -> Void

    /// A logger that hands each line at `minimumLevel` or above to `sink`.
    package init(minimumLevel: Level = .debug, _ sink: @escaping @Sendable (Level, String) -> Void) {
        self.minimumLevel = minimumLevel
        self.sink = sink
    }

    /// A logger that drops everything.
    package static var discarding: ControlServerLogger {
        ControlServerLogger(minimumLevel: .error) { _, _ in }
    }

    /// Formats and emits `message` if `level` is enabled. Any thread.
    func log(_ level: Level, _ message: @autoclosure () -> String) {
        if level >= minimumLevel { sink(level, message()) }
    }
}
