import AccessoryConfig
import Glibc
import SystemCalls

/// The daemon's log: one line per event on stderr. Under systemd (`JOURNAL_STREAM` set) each
/// line starts with a `<N>` syslog priority so journald files it at the right level; otherwise
/// the level is written as a word.
///
/// Any thread: a line is written with one `write(2)`, so lines from different threads never
/// interleave.
final class DaemonLog: Sendable {
    let minimum: LogLevel
    let journald: Bool

    init(minimum: LogLevel, environment: [String: String]) {
        self.minimum = minimum
        self.journald = environment["JOURNAL_STREAM"] != nil
    }

    func callAsFunction(_ level: LogLevel, _ message: String) {
        guard DaemonLog.rank(level) >= DaemonLog.rank(minimum) else { return }
        let line =
            journald
            ? "<\(DaemonLog.syslogPriority(level))>\(message)\n" : "accessoryd: \(level.rawValue): \(message)\n"
        var bytes = Array(line.utf8)
        _ = try? FileIO.write(2, bytes)
        bytes.removeAll()
    }

    static func rank(_ l: LogLevel) -> Int {
        switch l {
        case .trace: 0
        case .debug: 1
        case .info: 2
        case .notice: 3
        case .warning: 4
        case .error: 5
        case .critical: 6
        }
    }

    static func syslogPriority(_ l: LogLevel) -> Int {
        switch l {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
