import AccessoryTestSupport
import Glibc
import SystemCalls
import Testing

/// A restart through the file descriptor store, with the notify harness standing in for systemd:
/// the first daemon sends each open device to the harness (`FDSTORE=1`, its descriptor attached);
/// the second is started with those descriptors as systemd passes them (`LISTEN_FDS` from fd 3,
/// `LISTEN_FDNAMES`, `LISTEN_PID`), and adopts each one only if its configuration still names the
/// accessory and the path still names that device. Each simulator counts the closes of its pty
/// (`--count-closes`): the stand-in for a DTR drop.
@Suite("restart through the file descriptor store", .serialized)
struct DescriptorStoreTests {
    /// What systemd gives a service: the notification socket, and an invocation id (without it
    /// the daemon keeps nothing: it is not a service).
    static func serviceEnvironment(_ notify: NotifySocketHarness) -> [String: String] {
        ["NOTIFY_SOCKET": notify.notifySocket, "INVOCATION_ID": "descriptor-store-test"]
    }

    static func closes(_ s: Scenario, _ name: String) -> Int? {
        Int(FileIO.readText(s.directory.file("\(name).closes")).split(separator: "\n").first ?? "")
    }

    @Test(
        "kept: never closed, still served; removed from the configuration: closed; replaced on its path: opened afresh"
    )
    func adoptionRules() throws {
        let s = try Scenario()
        defer { s.finish() }
        let notify = try NotifySocketHarness(abstract: true)
        defer { notify.close() }
        for name in ["kept", "dropped", "moved"] {
            try s.simulator(name, ["--personality", "echo", "--count-closes", s.directory.file("\(name).closes")])
        }
        try s.startDaemon(
            accessories: ["kept", "dropped", "moved"].map { s.lineAccessory($0) },
            environment: Self.serviceEnvironment(notify)
        )
        for name in ["kept", "dropped", "moved"] {
            let stored = try notify.waitFor("FDNAME", "device.\(name)", seconds: 10)
            #expect(
                stored?.value("FDSTORE") == "1" && stored?.descriptors.count == 1,
                "\(name): \(String(describing: stored))"
            )
        }
        s.stopDaemon()
        // The daemon closed nothing for good at its stop: no FDSTOREREMOVE, and the harness (as
        // systemd would) still holds every device, so none was closed.
        #expect(!notify.messages.contains { $0.value("FDSTOREREMOVE") != nil })
        for name in ["kept", "dropped", "moved"] { #expect(Self.closes(s, name) == 0, "\(name)") }
        // "moved": another device appears on the same path (its simulator restarts on a new pty).
        _ = s.simulator(named: "moved")?.child.terminate(seconds: 10)
        try s.simulator("moved", ["--personality", "echo"])

        let daemon = try Self.handOver(s, notify, accessories: [s.lineAccessory("kept"), s.lineAccessory("moved")])
        defer { _ = daemon.child.terminate(seconds: 10) }
        try s.waitUntilReady(["kept", "moved"])
        let client = try s.connect()
        #expect(try client.call("transact", Params.transfer("kept", "still here")).frameTexts == ["still here"])
        #expect(try client.call("transact", Params.transfer("moved", "new one")).frameTexts == ["new one"])
        #expect(Self.closes(s, "kept") == 0, "the kept device was closed: \(daemon.log)")
        #expect(daemon.log.contains("kept: kept open across the restart"), "\(daemon.log)")
        // Gone from the configuration: closed once, and dropped from the store.
        #expect(Wait.until(seconds: 10) { Self.closes(s, "dropped") == 1 }, "\(daemon.log)")
        #expect(daemon.log.contains("closed the descriptor kept for device.dropped"), "\(daemon.log)")
        #expect(try notify.waitFor("FDSTOREREMOVE", "1", seconds: 5) != nil)
        #expect(notify.messages.contains { $0.value("FDSTOREREMOVE") == "1" && $0.value("FDNAME") == "device.dropped" })
        // Another device on its path: the kept descriptor closed, the path opened afresh and stored.
        #expect(daemon.log.contains("moved: closed the descriptor kept across the restart"), "\(daemon.log)")
        #expect(
            notify.messages.filter { $0.value("FDSTORE") == "1" && $0.value("FDNAME") == "device.moved" }.count == 2
        )
    }

    /// The restart as `adoptionRules` does it: the daemon stops, then its stored descriptors go
    /// to a second one with `accessories` configured.
    static func restart(_ s: Scenario, _ notify: NotifySocketHarness, accessories: [String]) throws -> DaemonRun {
        s.stopDaemon()
        return try handOver(s, notify, accessories: accessories)
    }

    /// The harness's copies of the stored descriptors handed to a new daemon as systemd passes
    /// them (`LISTEN_FDS`, `LISTEN_FDNAMES`), with `accessories` configured; then the harness's
    /// copies go, as systemd's would once the new daemon has them.
    static func handOver(_ s: Scenario, _ notify: NotifySocketHarness, accessories: [String]) throws -> DaemonRun {
        let kept = notify.takeDescriptors()
        let config = try s.directory.write("second.yaml", s.configuration(accessories: accessories))
        let names = kept.map(\.name).joined(separator: ":")
        let daemon = try DaemonRun(
            configPath: config,
            socketPath: s.socketPath,
            in: s.directory,
            environment: Self.serviceEnvironment(notify),
            launcher: [
                "/bin/sh", "-c", "LISTEN_PID=$$ LISTEN_FDS=\(kept.count) LISTEN_FDNAMES=\(names) exec \"$0\" \"$@\"",
            ],
            passing: kept.map(\.fd)
        )
        for (_, fd) in kept { close(fd) }
        return daemon
    }

    @Test("gpsd on a monitor view keeps its /dev/pts/N and its fixes across a restart, and is never told")
    func gpsdAcrossARestart() throws {
        let s = try Scenario()
        defer { s.finish() }
        let notify = try NotifySocketHarness(abstract: true)
        defer { notify.close() }
        try s.simulator("gps", ["--personality", "nmea", "--unsolicited-ms", "100"])
        let accessory = s.lineAccessory(
            "gps",
            framing: #"{type: line, delimiter: "\r\n", terminator: "\r\n"}"#,
            #"unsolicited: ['^\$GP'], views: [{pty: gps, mode: monitor}]"#
        )
        try s.startDaemon(accessories: [accessory], environment: Self.serviceEnvironment(notify))
        let view = s.runtimeDirectory + "/tty/gps"
        let terminal = try FileIO.readLink(view)
        let gpsd = try GPSDRun(device: view, in: s.directory)
        defer { gpsd.finish() }
        _ = try gpsd.waitForFixes(moreThan: 3, seconds: 20)
        #expect(try notify.waitFor("FDNAME", "device.gps", seconds: 10) != nil)
        // A view's master is kept even while nobody has its slave open (systemd would otherwise
        // drop it: a pty master with no reader reports a hang-up).
        #expect(
            notify.messages.contains {
                $0.value("FDSTORE") == "1" && ($0.value("FDNAME") ?? "").hasPrefix("view.gps.")
                    && $0.value("FDPOLL") == "0"
            }
        )
        let logBefore = gpsd.gpsd.stdout

        let daemon = try Self.restart(s, notify, accessories: [accessory])
        defer { _ = daemon.child.terminate(seconds: 10) }
        try s.waitUntilReady(["gps"])
        #expect(try FileIO.readLink(view) == terminal, "the view's pty was replaced: \(daemon.log)")
        #expect(daemon.log.contains("kept open across the restart"), "\(daemon.log)")
        let before = gpsd.fixes.count
        let after = try gpsd.waitForFixes(moreThan: before + 3, seconds: 20)
        #expect(after.dropFirst(before).filter { !$0.isSimulatorPosition }.isEmpty)
        #expect(gpsd.gpsd.isRunning)
        #expect(gpsd.openTerminals.contains(terminal), "gpsd holds \(gpsd.openTerminals), the view is \(terminal)")
        // gpsd said nothing about its device meanwhile (no hang-up, no reopen).
        #expect(gpsd.gpsd.stdout == logBefore, "gpsd's log grew: \(gpsd.gpsd.stdout.dropFirst(logBefore.count))")
    }

    @Test("a view whose settings changed gets a new pty; the old one is closed and dropped from the store")
    func changedViewGetsANewPty() throws {
        let s = try Scenario()
        defer { s.finish() }
        let notify = try NotifySocketHarness(abstract: true)
        defer { notify.close() }
        try s.simulator("echo")
        try s.startDaemon(
            accessories: [s.lineAccessory("echo", "views: [{pty: echo, mode: monitor}]")],
            environment: Self.serviceEnvironment(notify)
        )
        let view = s.runtimeDirectory + "/tty/echo"
        let before = try FileIO.readLink(view)
        #expect(try notify.waitFor("FDNAME", "device.echo", seconds: 10) != nil)
        let changed = s.lineAccessory("echo", "views: [{pty: echo, mode: shared}]")
        let daemon = try Self.restart(s, notify, accessories: [changed])
        defer { _ = daemon.child.terminate(seconds: 10) }
        try s.waitUntilReady(["echo"])
        #expect(try FileIO.readLink(view) != before, "the changed view kept its old pty: \(daemon.log)")
        // What nothing took is closed on the device loop just after start-up (`closeUnclaimed`),
        // so a client may see the accessory ready first.
        #expect(
            Wait.until(seconds: 10) { daemon.log.contains("closed the descriptor kept for view.echo.") },
            "\(daemon.log)"
        )
        #expect(
            daemon.log.contains("echo: kept open across the restart"),
            "the device is kept all the same: \(daemon.log)"
        )
    }
}
