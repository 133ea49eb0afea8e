import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// Hot-plug without udev, against the built daemon: a folder named in `hotplug.watch`, and the
/// fallback to folder watching when the udev monitor cannot start (`hotplug.udev: auto`), which
/// the daemon's test hook `ACCESSORYD_TEST_NO_UDEV` brings about (nothing else makes libudev fail
/// on a test machine).
///
/// Threading: each test runs on its own test thread and owns its scenario's processes.
@Suite struct HotplugFallbackTests {
    static let noUdev = ["ACCESSORYD_TEST_HOOKS": "1", "ACCESSORYD_TEST_NO_UDEV": "1"]

    /// The accessory's path is a link made ahead of the device (`devices/gps` → `<folder>/gps`,
    /// dangling until the simulator publishes `<folder>/gps`). Only `<folder>`, in
    /// `hotplug.watch`, sees the device appear: the accessory opens at once, not at its 10 s
    /// back-off.
    @Test func aDeviceAppearingInAWatchedFolderOpensTheAccessoryLinkedToIt() throws {
        let s = try Scenario()
        defer { s.finish() }
        let devices = s.directory.file("devices")
        try FileIO.makeDirectory(devices)
        try FileIO.symlink(target: s.directory.file("gps"), at: devices + "/gps")
        try s.startDaemon(
            accessories: [
                s.lineAccessory("gps", path: devices + "/gps", "reconnect: {initial_ms: 10000, max_ms: 10000}")
            ],
            ready: [],
            sections: "hotplug:\n  udev: off\n  watch: [\(s.directory.path)]\n"
        )
        let client = try s.connect()
        defer { client.close() }
        _ = try client.result("subscribe", ["events": ["state"]])
        #expect(try s.state(of: "gps", via: client) == "absent")

        try s.simulator("gps")
        let after = try waitForState(client, "gps", "ready", seconds: 5)
        #expect(after < 3, "ready \(after) s after the device appeared; the back-off alone would take 10 s")
        #expect(
            try client.call("transact", Params.transfer("gps", "through the link")).frameTexts == ["through the link"]
        )

        // The device goes (the simulator's link is removed): the accessory is closed at once.
        try #require(s.simulator(named: "gps")?.child.terminate(seconds: 10) != nil)
        _ = try waitForState(client, "gps", "absent", seconds: 5)
    }

    @Test func withoutUdevUnderAutoTheDaemonWatchesFoldersAndServes() throws {
        let s = try Scenario()
        defer { s.finish() }
        // Answers one request, hangs up on the next, reappears on a new pty 200 ms later.
        try s.simulator("flaky", ["--personality", "echo", "--hangup-after", "1", "--reappear-after-ms", "200"])
        try s.startDaemon(
            accessories: [s.lineAccessory("flaky", "reconnect: {initial_ms: 10000, max_ms: 10000}")],
            environment: Self.noUdev,
            sections: "hotplug:\n  udev: auto\n"
        )
        #expect(s.log.contains("udev monitor unavailable"), "\(s.log)")
        #expect(s.log.contains("devices are found by watching folders"))
        #expect(!s.log.contains("udev monitor started"))

        let client = try s.connect()
        defer { client.close() }
        _ = try client.result("subscribe", ["events": ["state"]])
        #expect(try client.call("transact", Params.transfer("flaky", "one")).frameTexts == ["one"])
        #expect(try client.call("transact", Params.transfer("flaky", "two")).code == ErrorCode.deviceRemoved.rawValue)
        let back = try waitForState(client, "flaky", "ready", seconds: 5)
        #expect(back < 3, "ready \(back) s after the removal (folder watching); the back-off alone would take 10 s")
        #expect(try client.call("transact", Params.transfer("flaky", "three")).frameTexts == ["three"])
    }

    @Test func withoutUdevUnderOnTheDaemonRefusesToStartAndSaysWhy() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        let config = try s.directory.write(
            "accessoryd.yaml",
            s.configuration(accessories: [s.lineAccessory("echo")], sections: "hotplug:\n  udev: on\n")
        )
        let run = try DaemonRun(
            configPath: config,
            socketPath: s.socketPath,
            in: s.directory,
            environment: Self.noUdev,
            waitForSocket: false
        )
        let ended = run.child.wait(seconds: 15)
        if ended == nil { run.child.kill() }
        #expect(ended == .exited(1), "\(String(describing: ended)); log:\n\(run.log)")
        #expect(run.log.contains("the udev monitor is required (hotplug.udev: on) but failed"), "\(run.log)")
        #expect(run.log.contains("udev unavailable"))
    }
}
