import AccessoryTestSupport
import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// SIGHUP against the built daemon: a changed, an unchanged, an added and a removed accessory in
/// one reload, then a broken file; the client connection lives through both.
///
/// Threading: the test's thread; it owns the daemon, the simulators and the client.
@Suite struct ReloadTests {
    @Test func sighupAppliesOnlyWhatChangedAndRejectsABrokenFile() throws {
        let s = try Scenario()
        defer { s.finish() }
        for name in ["same", "changed", "gone", "added"] { try s.simulator(name) }
        try s.startDaemon(
            accessories: [
                s.lineAccessory("same"), s.lineAccessory("changed", "response: {timeout_ms: 1000}"),
                s.lineAccessory("gone"),
            ],
            ready: ["same", "changed", "gone"]
        )
        let client = try s.connect()
        _ = try client.result("subscribe", ["events": ["state"]])

        // One reload: `same` as it was, `changed` with another timeout, `gone` dropped, `added` new.
        let configPath = s.directory.file("accessoryd.yaml")
        _ = try s.directory.write(
            "accessoryd.yaml",
            s.configuration(accessories: [
                s.lineAccessory("same"), s.lineAccessory("changed", "response: {timeout_ms: 1500}"),
                s.lineAccessory("added"),
            ])
        )
        try ChildProcess.signal(s.daemon!.pid, SIGHUP)
        try s.waitUntilReady(["same", "changed", "added"])
        let status = try client.result("device.status", Params.device("changed"))
        #expect(status["settings"]?["timeout_ms"]?.int64Value == 1500)
        let names = try client.result("devices.list")["devices"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(names == ["same", "changed", "added"])
        #expect(try client.call("transact", Params.transfer("same", "after reload")).frameTexts == ["after reload"])

        // State events: `changed` went down and came back, `gone` went away, `same` said nothing.
        var seen: [String: [String]] = [:]
        for message in try client.messages(during: 0.3) {
            if case .notification(let n) = message, let d = n.params["device"]?.stringValue {
                seen[d, default: []].append(n.params["state"]?.stringValue ?? "?")
            }
        }
        for n in client.notifications {
            if let d = n.params["device"]?.stringValue {
                seen[d, default: []].append(n.params["state"]?.stringValue ?? "?")
            }
        }
        #expect(seen["same"] == nil, "\(seen)")
        #expect(seen["changed"]?.first == "disabled" && seen["changed"]?.last == "ready", "\(seen)")
        #expect(seen["gone"] == ["disabled"], "\(seen)")

        // A broken file: rejected with its reason in the log; everything keeps running.
        _ = try s.directory.write(
            "accessoryd.yaml",
            "accessories:\n  - name: same\n    path: relative/path\n    bogus: 1\n"
        )
        try ChildProcess.signal(s.daemon!.pid, SIGHUP)
        let deadline = Deadline(seconds: 10)
        while !s.log.contains("rejected") && !deadline.hasPassed { usleep(10_000) }
        #expect(s.log.contains("reload of \(configPath) rejected"), "\(s.log)")
        #expect(s.log.contains("bogus"), "the unknown key is named")
        #expect(try client.call("transact", Params.transfer("added", "still here")).frameTexts == ["still here"])
        #expect(try client.result("devices.list")["devices"]?.arrayValue?.count == 3)
        client.close()
    }
}

/// SIGHUP under a service manager: RELOADING=1, then READY=1 with a STATUS= line, for an applied
/// reload and for a rejected one alike.
@Suite struct ReloadNotifyTests {
    /// Reads (bounded) until `count` messages carry `name=1`; returns every message read so far.
    static func waitForCount(_ notify: NotifySocketHarness, _ name: String, _ count: Int) throws -> [String] {
        let deadline = Deadline(seconds: 10)
        func seen() -> Int { notify.messages.filter { $0.value(name) == "1" }.count }
        while seen() < count && !deadline.hasPassed { try notify.receive(seconds: 0.1) }
        #expect(seen() >= count, "\(count) × \(name)=1 expected: \(notify.messages)")
        return notify.messages.compactMap { m in
            m.value("RELOADING") != nil ? "RELOADING" : m.value("READY") != nil ? "READY" : nil
        }
    }

    @Test func reloadingThenReadyAroundEachReload() throws {
        let s = try Scenario()
        defer { s.finish() }
        let notify = try NotifySocketHarness(abstract: true)
        defer { notify.close() }
        try s.simulator("one")
        try s.simulator("two")
        let config = try s.directory.write("accessoryd.yaml", s.configuration(accessories: [s.lineAccessory("one")]))
        let daemon = try DaemonRun(
            configPath: config,
            socketPath: s.socketPath,
            in: s.directory,
            environment: ["NOTIFY_SOCKET": notify.notifySocket],
            waitForSocket: false
        )
        s.adopt(daemon)
        #expect(try Self.waitForCount(notify, "READY", 1) == ["READY"])
        try s.waitUntilReady(["one"])

        _ = try s.directory.write(
            "accessoryd.yaml",
            s.configuration(accessories: [s.lineAccessory("one"), s.lineAccessory("two")])
        )
        try ChildProcess.signal(daemon.pid, SIGHUP)
        #expect(try Self.waitForCount(notify, "READY", 2) == ["READY", "RELOADING", "READY"])
        #expect(notify.messages.last { $0.value("READY") != nil }?.value("STATUS") != nil, "READY=1 with STATUS=")
        try s.waitUntilReady(["one", "two"])

        _ = try s.directory.write("accessoryd.yaml", "accessories: [")
        try ChildProcess.signal(daemon.pid, SIGHUP)
        #expect(try Self.waitForCount(notify, "READY", 3) == ["READY", "RELOADING", "READY", "RELOADING", "READY"])
        #expect(s.log.contains("rejected"))
        try s.waitUntilReady(["one", "two"])
    }
}
