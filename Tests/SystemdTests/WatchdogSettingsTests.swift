import Systemd
import Testing

@Suite("WatchdogSettings (WATCHDOG_USEC, WATCHDOG_PID)")
struct WatchdogSettingsTests {
    @Test("WATCHDOG_USEC gives the timeout; pings go at half of it")
    func interval() throws {
        let w = try #require(try WatchdogSettings.parse(environment: ["WATCHDOG_USEC": "200000"], pid: 42))
        #expect(w.timeout == .milliseconds(200))
        #expect(w.pingInterval == .milliseconds(100))
        let odd = try #require(try WatchdogSettings.parse(environment: ["WATCHDOG_USEC": "3"], pid: 42))
        #expect(odd.pingInterval == .nanoseconds(1500))
    }

    @Test("unset: no watchdog")
    func unset() throws {
        #expect(try WatchdogSettings.parse(environment: [:], pid: 42) == nil)
        #expect(try WatchdogSettings.parse(environment: ["WATCHDOG_PID": "42"], pid: 42) == nil)
    }

    @Test("WATCHDOG_PID: ours → on; another process's → off")
    func pid() throws {
        let ours = ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "42"]
        #expect(try WatchdogSettings.parse(environment: ours, pid: 42)?.timeout == .seconds(30))
        let theirs = ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "41"]
        #expect(try WatchdogSettings.parse(environment: theirs, pid: 42) == nil)
    }

    @Test(
        "values that are not positive integers are errors",
        arguments: [
            ["WATCHDOG_USEC": "0"], ["WATCHDOG_USEC": "-5"], ["WATCHDOG_USEC": "30s"], ["WATCHDOG_USEC": ""],
            ["WATCHDOG_USEC": "99999999999999999999"], ["WATCHDOG_USEC": "1000", "WATCHDOG_PID": "me"],
            ["WATCHDOG_USEC": "1000", "WATCHDOG_PID": "0"],
        ]
    )
    func bad(environment: [String: String]) {
        #expect(throws: SystemdError.self) { try WatchdogSettings.parse(environment: environment, pid: 42) }
    }
}
