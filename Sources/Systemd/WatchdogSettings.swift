/// The service manager's watchdog as `sd_watchdog_enabled` reads it: `WATCHDOG_USEC` is the
/// timeout, and `WATCHDOG_PID`, when set, names the one process that must ping.
///
/// Ping at half the timeout (as sd_watchdog_enabled(3) advises), so that one late ping does not
/// kill the service.
///
/// Threading: a value. Any thread.
package struct WatchdogSettings: Sendable, Equatable {
    /// After this long without a ping the service manager kills the service.
    package let timeout: Duration

    /// How often to ping: half the timeout.
    package var pingInterval: Duration { timeout / 2 }

    package init(timeout: Duration) { self.timeout = timeout }

    /// The watchdog for process `pid` under `environment`: nil when `WATCHDOG_USEC` is unset, or
    /// when `WATCHDOG_PID` names another process (the variables were meant for a parent or a
    /// child, not us). A value that is not a positive integer is an error. Pure; any thread.
    package static func parse(environment: [String: String], pid: Int32) throws(SystemdError) -> WatchdogSettings? {
        guard let usecText = environment["WATCHDOG_USEC"] else { return nil }
        guard let usec = UInt64(usecText), usec > 0, usec <= UInt64(Int64.max) / 1000 else {
            throw .badWatchdog(variable: "WATCHDOG_USEC", value: usecText)
        }
        if let pidText = environment["WATCHDOG_PID"] {
            guard let target = Int32(pidText), target > 0 else {
                throw .badWatchdog(variable: "WATCHDOG_PID", value: pidText)
            }
            if target != pid { return nil }
        }
        return WatchdogSettings(timeout: .microseconds(Int64(usec)))
    }
}
