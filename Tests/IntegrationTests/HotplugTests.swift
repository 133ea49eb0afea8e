import AccessoryTestSupport
import ControlProtocol
import Glibc
import JSONCodec
import SystemCalls
import Testing

/// The folder watcher against the built daemon: an accessory whose link comes back is open again
/// at once, not at its next back-off attempt.
@Suite struct FolderWatchTests {
    @Test func aReappearingLinkOpensTheAccessoryLongBeforeItsBackOff() throws {
        let s = try Scenario()
        defer { s.finish() }
        // Answers one request, hangs up on the next, reappears on a new pty 200 ms later.
        try s.simulator("flaky", ["--personality", "echo", "--hangup-after", "1", "--reappear-after-ms", "200"])
        try s.startDaemon(accessories: [s.lineAccessory("flaky", "reconnect: {initial_ms: 10000, max_ms: 10000}")])
        let client = try s.connect()
        defer { client.close() }
        _ = try client.result("subscribe", ["events": ["state"]])
        #expect(try client.call("transact", Params.transfer("flaky", "one")).frameTexts == ["one"])
        #expect(try client.call("transact", Params.transfer("flaky", "two")).code == 1005)
        let back = try waitForState(client, "flaky", "ready", seconds: 5)
        #expect(back < 1, "ready \(back) s after the removal; the back-off alone would take 10 s")
        #expect(try client.call("transact", Params.transfer("flaky", "three")).frameTexts == ["three"])
        // Accessories named by path do not need the present devices enumerated (two thirds of
        // the start-up CPU): the monitor starts without it, or is unavailable here.
        #expect(
            s.log.contains("udev monitor started (no match: accessory, present devices not enumerated)")
                || s.log.contains("udev monitor unavailable"),
            "\(s.log)"
        )
        #expect(!s.log.contains("tty devices present"), "\(s.log)")
    }
}

/// The udev monitor inside the built daemon, fed libudev-format netlink messages. Runs only in a
/// private network namespace (`make test` runs this suite under `unshare -rn`), so the fake
/// events reach nobody else.
@Suite(
    "HotplugNetlinkDaemonTests",
    .serialized,
    .enabled(if: HotplugNamespace.isPrivateNetwork, Comment(rawValue: HotplugNamespace.skipReason ?? ""))
)
struct HotplugNetlinkDaemonTests {
    /// The removals here are udev messages only: the simulated device is not reset and still
    /// answers the request a removal interrupted, so the reopen discards that answer
    /// (`after_reopen: late_answer`).
    static func matchAccessory(_ name: String, serial: String) -> String {
        "  - {name: \(name), match: {vendor_id: \"1a86\", product_id: \"7523\", serial: \"\(serial)\"}, "
            + "response: {timeout_ms: 3000}, reconnect: {initial_ms: 10000, max_ms: 10000}, "
            + "resync: {after_reopen: late_answer}}"
    }

    static func properties(serial: String) -> [UeventMessage.Property] {
        [.init("ID_VENDOR_ID", "1a86"), .init("ID_MODEL_ID", "7523"), .init("ID_SERIAL_SHORT", serial)]
    }

    @Test func addRemoveReplugWithARequestInFlightAndAStrangerIgnored() throws {
        let s = try Scenario()
        defer { s.finish() }
        let link = try s.simulator("dongle", ["--personality", "echo", "--delay-ms", "300"])
        let strangerLink = try s.simulator("stranger")
        try s.startDaemon(accessories: [Self.matchAccessory("dongle", serial: "A1")], ready: [])
        let client = try s.connect()
        defer { client.close() }
        _ = try client.result("subscribe", ["events": ["state"]])
        #expect(try s.state(of: "dongle", via: client) == "absent")

        var udev = try UeventSender()
        // Another device (other serial): ignored.
        try udev.send(
            action: "add",
            devPath: "/devices/usb1/1-2/tty/ttyUSB1",
            devName: strangerLink,
            properties: Self.properties(serial: "ZZ")
        )
        let dongle = "/devices/usb1/1-1/tty/ttyUSB0"
        try udev.send(action: "add", devPath: dongle, devName: link, properties: Self.properties(serial: "A1"))
        #expect(try waitForState(client, "dongle", "ready") < 2)
        #expect(try s.state(of: "dongle", via: client) == "ready")

        // A request in flight when udev says the device is gone: 1005; then absent.
        let inFlight = try client.send("transact", Params.transfer("dongle", "interrupted"))
        // Executing: its frame is out (the simulator answers after 300 ms).
        #expect(try waitForStatus(client, "dongle") { $0["counters"]?["frames_out"]?.int64Value == 1 })
        try udev.send(action: "remove", devPath: dongle, devName: link, properties: Self.properties(serial: "A1"))
        #expect(try client.response(to: inFlight).code == 1005)
        _ = try waitForState(client, "dongle", "absent")

        // Replug: ready again under the same name, without a restart.
        try udev.send(action: "add", devPath: dongle, devName: link, properties: Self.properties(serial: "A1"))
        _ = try waitForState(client, "dongle", "ready", seconds: 5)
        #expect(try client.call("transact", Params.transfer("dongle", "again")).frameTexts == ["again"])
        // A `match:` accessory: the devices present at start-up are enumerated.
        #expect(s.log.contains("tty devices present)"), "\(s.log)")
    }

    @Test func twoMatchingDevicesAreAReportedConflict() throws {
        let s = try Scenario()
        defer { s.finish() }
        let first = try s.simulator("first")
        let second = try s.simulator("second")
        try s.startDaemon(accessories: [Self.matchAccessory("dongle", serial: "A1")], ready: [])
        let client = try s.connect()
        defer { client.close() }
        // The socket accepts connections before the daemon serves them; an answer means the udev
        // monitor has started (it starts first), so the events below cannot go unheard.
        _ = try client.result("devices.list")
        var udev = try UeventSender()
        try udev.send(
            action: "add",
            devPath: "/devices/usb1/1-1/tty/ttyUSB0",
            devName: first,
            properties: Self.properties(serial: "A1")
        )
        try udev.send(
            action: "add",
            devPath: "/devices/usb1/1-3/tty/ttyUSB2",
            devName: second,
            properties: Self.properties(serial: "A1")
        )
        var status = JSONValue.null
        let failed = try waitForStatus(client, "dongle") {
            status = $0
            return $0["state"]?.stringValue == "failed"
        }
        #expect(failed, "\(status)")
        let reason = status["reason"]?.stringValue ?? ""
        #expect(reason.contains("conflict: 2 devices match"), "\(status)")
        #expect(reason.contains(first) && reason.contains(second))
        try udev.send(action: "remove", devPath: "/devices/usb1/1-1/tty/ttyUSB0", devName: first)
        try s.waitUntilReady(["dongle"], seconds: 5)
    }
}
