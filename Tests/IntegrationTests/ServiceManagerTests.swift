import AccessoryTestSupport
import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// The daemon under a stand-in service manager: a test-owned `NOTIFY_SOCKET` (READY, STATUS,
/// STOPPING, the watchdog's cadence and its silence while the device loop is stuck), journald
/// priorities, and socket activation under `systemd-socket-activate`.
///
/// Threading: the test's thread; it owns the daemon, the simulators and the notify socket.
@Suite struct ServiceManagerTests {
    /// The STATUS= of the newest message that has one.
    static func lastStatus(_ notify: NotifySocketHarness) -> String? {
        notify.messages.last { $0.value("STATUS") != nil }?.value("STATUS")
    }

    /// Reads notifications (bounded) until the newest STATUS= satisfies `condition`.
    static func waitForStatus(
        _ notify: NotifySocketHarness,
        seconds: Double = 10,
        _ condition: (String) -> Bool
    ) throws -> Bool {
        let deadline = Deadline(seconds: seconds)
        while true {
            if let s = lastStatus(notify), condition(s) { return true }
            if deadline.hasPassed { return false }
            try notify.receive(seconds: min(0.2, deadline.remaining))
        }
    }

    @Test func readyIsSentOnceTheSocketServesAndBothLoopsRun() throws {
        let s = try Scenario()
        defer { s.finish() }
        let notify = try NotifySocketHarness(abstract: false)
        defer { notify.close() }
        try s.simulator("echo1")
        let config = try s.directory.write("accessoryd.yaml", s.configuration(accessories: [s.lineAccessory("echo1")]))
        let daemon = try DaemonRun(
            configPath: config,
            socketPath: s.socketPath,
            in: s.directory,
            environment: ["NOTIFY_SOCKET": notify.notifySocket],
            waitForSocket: false
        )
        s.adopt(daemon)
        let ready = try #require(try notify.waitFor("READY", "1", seconds: 15), "no READY=1; log:\n\(s.log)")
        // Right after READY=1 the first connect succeeds (no retry) and a request is answered: the
        // control loop parsed it, the device loop listed the accessories.
        let client = try s.connect()
        defer { client.close() }
        let devices = try client.result("devices.list")["devices"]?.arrayValue ?? []
        #expect(devices.map { $0["name"]?.stringValue } == ["echo1"])
        #expect(ready.senderPID == daemon.pid, "sent by the daemon itself (NotifyAccess=main)")
        let status = try #require(ready.value("STATUS"), "READY=1 comes with a STATUS= line")
        #expect(status.hasSuffix("; 0 clients"), "\(status)")
        try notify.receive(seconds: 0.3)
        #expect(notify.messages.filter { $0.value("READY") != nil }.count == 1, "\(notify.messages)")
    }

    @Test func statusFollowsAccessoriesAndClients() throws {
        let s = try Scenario()
        defer { s.finish() }
        let notify = try NotifySocketHarness(abstract: true)
        defer { notify.close() }
        try s.simulator("echo1")
        try s.startDaemon(
            accessories: [s.lineAccessory("echo1")],
            environment: ["NOTIFY_SOCKET": notify.notifySocket]
        )
        #expect(try Self.waitForStatus(notify) { $0 == "1 accessory ready; 0 clients" }, "\(notify.messages)")
        let client = try s.connect()
        #expect(try Self.waitForStatus(notify) { $0 == "1 accessory ready; 1 client" }, "\(notify.messages)")
        // Unplug: the simulator goes away, so does its pty.
        _ = s.simulator(named: "echo1")?.child.terminate(seconds: 10)
        let gone = try Self.waitForStatus(notify) {
            $0.hasPrefix("0 accessories ready, 1 ") && $0.hasSuffix("; 1 client")
        }
        #expect(gone, "\(notify.messages)")
        client.close()
        #expect(try Self.waitForStatus(notify) { $0.hasSuffix("; 0 clients") }, "\(notify.messages)")
        // Each line is sent when it changes, not repeated.
        let lines = notify.messages.compactMap { $0.value("STATUS") }
        #expect(zip(lines, lines.dropFirst()).allSatisfy { $0 != $1 }, "\(lines)")
    }

    @Test func stoppingIsSentOnSigterm() throws {
        let s = try Scenario()
        defer { s.finish() }
        let notify = try NotifySocketHarness(abstract: false)
        defer { notify.close() }
        try s.simulator("echo1")
        try s.startDaemon(accessories: [s.lineAccessory("echo1")], environment: ["NOTIFY_SOCKET": notify.notifySocket])
        _ = try #require(try notify.waitFor("READY", "1", seconds: 10))
        #expect(s.stopDaemon() == .exited(0))
        let stopping = try notify.waitFor("STOPPING", "1", seconds: 5)
        #expect(stopping != nil, "\(notify.messages)")
        let names = notify.messages.flatMap { $0.fields.map(\.name) }
        #expect(names.firstIndex(of: "READY")! < names.firstIndex(of: "STOPPING") ?? -1)
    }

    /// The pings in `messages` that arrived in `from..<to` (monotonic seconds).
    static func pings(_ messages: [NotifySocketHarness.Message], from: Double, to: Double) -> [Double] {
        messages.filter { $0.value("WATCHDOG") == "1" && $0.arrival >= from && $0.arrival < to }.map(\.arrival)
    }

    /// Collects every notification for `seconds`.
    static func collect(_ notify: NotifySocketHarness, seconds: Double) throws {
        let deadline = Deadline(seconds: seconds)
        while !deadline.hasPassed { try notify.receive(seconds: deadline.remaining) }
    }

    @Test func watchdogPingsAtHalfTheTimeout() throws {
        let s = try Scenario()
        defer { s.finish() }
        let notify = try NotifySocketHarness(abstract: false)
        defer { notify.close() }
        try s.simulator("echo1")
        try s.startDaemon(
            accessories: [s.lineAccessory("echo1")],
            environment: ["NOTIFY_SOCKET": notify.notifySocket, "WATCHDOG_USEC": "200000"]
        )
        _ = try #require(try notify.waitFor("READY", "1", seconds: 10))
        let start = MonotonicNow.seconds()
        try Self.collect(notify, seconds: 1.0)
        // WATCHDOG_USEC=200000: a ping every 100 ms, so about 10 in a second (an idle loop too).
        let pings = Self.pings(notify.messages, from: start, to: start + 1.0)
        #expect((7...13).contains(pings.count), "\(pings.count) pings in 1 s: \(pings.map { $0 - start })")
        #expect(notify.messages.filter { $0.value("WATCHDOG") != nil }.allSatisfy { $0.senderPID == s.daemon?.pid })
    }

    @Test func watchdogForAnotherProcessIsIgnored() throws {
        let s = try Scenario()
        defer { s.finish() }
        let notify = try NotifySocketHarness(abstract: false)
        defer { notify.close() }
        try s.simulator("echo1")
        try s.startDaemon(
            accessories: [s.lineAccessory("echo1")],
            environment: ["NOTIFY_SOCKET": notify.notifySocket, "WATCHDOG_USEC": "200000", "WATCHDOG_PID": "1"]
        )
        _ = try #require(try notify.waitFor("READY", "1", seconds: 10))
        try Self.collect(notify, seconds: 0.6)
        #expect(notify.messages.allSatisfy { $0.value("WATCHDOG") == nil }, "\(notify.messages)")
    }

    @Test func watchdogStopsWhileTheDeviceLoopIsStuck() throws {
        let s = try Scenario()
        defer { s.finish() }
        let notify = try NotifySocketHarness(abstract: false)
        defer { notify.close() }
        try s.simulator("echo1")
        try s.startDaemon(
            accessories: [s.lineAccessory("echo1")],
            environment: [
                "NOTIFY_SOCKET": notify.notifySocket, "WATCHDOG_USEC": "200000",
                "ACCESSORYD_TEST_HOOKS": "1", "ACCESSORYD_TEST_STALL_MS": "800",
            ]
        )
        _ = try #require(try notify.waitFor("READY", "1", seconds: 10))
        try Self.collect(notify, seconds: 0.4)
        let signalled = MonotonicNow.seconds()
        try ChildProcess.signal(try #require(s.daemon?.pid), SIGUSR1)
        try Self.collect(notify, seconds: 1.6)
        let before = Self.pings(notify.messages, from: 0, to: signalled)
        let after = Self.pings(notify.messages, from: signalled, to: .infinity)
        #expect(before.count >= 2, "pings flow before the stall")
        // The stall (800 ms) shows as one long silence; then the pings resume.
        let times = (before.suffix(1) + after)
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
        let longest = gaps.max() ?? 0
        #expect(longest >= 0.65 && longest < 1.3, "longest silence \(longest) s; gaps \(gaps)")
        #expect(gaps.filter { $0 >= 0.65 }.count == 1, "\(gaps)")
        #expect(after.filter { $0 > signalled + 0.9 }.count >= 3, "pings resume after the stall: \(after)")
        #expect(s.log.contains("test hook: stalling the device loop for 800 ms"))
    }

    @Test func journalStreamGivesPriorityPrefixes() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo1")
        try s.startDaemon(accessories: [s.lineAccessory("echo1")], environment: ["JOURNAL_STREAM": "8:12345"])
        s.stopDaemon()
        let lines = s.log.split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.first == "<" && $0.dropFirst(2).first == ">" }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("<6>accessoryd ") && $0.contains(" serving 1 accessories") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("<6>received signal 15") }, "\(lines)")
    }

    @Test func aBadNotifySocketIsLoggedAndTheDaemonServesAnyway() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo1")
        try s.startDaemon(
            accessories: [s.lineAccessory("echo1")],
            environment: ["NOTIFY_SOCKET": "relative/notify", "WATCHDOG_USEC": "200000"]
        )
        let client = try s.connect()
        defer { client.close() }
        #expect(try client.call("transact", Params.transfer("echo1", "still here")).frameTexts == ["still here"])
        #expect(s.log.contains("NOTIFY_SOCKET=relative/notify cannot be used"), "\(s.log)")
        #expect(s.log.contains("WATCHDOG_USEC is set but NOTIFY_SOCKET is not"), "\(s.log)")
    }

    @Test func socketActivationServesTheInheritedSocket() throws {
        let activate = try #require(
            ExternalProgram.path("systemd-socket-activate"),
            "\(ExternalProgram.missing("systemd-socket-activate") ?? "")"
        )
        let s = try Scenario()
        defer { s.finish() }
        let notify = try NotifySocketHarness(abstract: false)
        defer { notify.close() }
        // The daemon starts this simulator itself, so its children's environment can be checked.
        let accessory = #"  - {name: sim1, simulate: {personality: echo}, framing: {type: line, delimiter: "\n"}}"#
        let config = try s.directory.write("accessoryd.yaml", s.configuration(accessories: [accessory]))
        let activated = s.directory.file("activated.sock")
        let child = try ChildRun(
            label: "systemd-socket-activate accessoryd",
            executable: activate,
            arguments: [
                // It hands the child only LISTEN_* and the variables named with -E.
                "-l", activated, "--fdname=control", "-E", "NOTIFY_SOCKET=\(notify.notifySocket)",
                try BuiltProducts.daemon(), "--config", config, "--runtime-dir",
                s.directory.path,
            ],
            stdoutPath: s.directory.file("accessoryd.log"),
            stderrPath: s.directory.file("accessoryd.log")
        )
        s.adopt(DaemonRun(adopting: child, socketPath: activated))
        // systemd-socket-activate listens first and execs the daemon at the first connection.
        let deadline = Deadline(seconds: 10)
        var first: RPCClient?
        while first == nil && !deadline.hasPassed {
            first = try? RPCClient(socketPath: activated)
            if first == nil { usleep(5_000) }
        }
        let client = try #require(first, "nothing listened on \(activated); log:\n\(s.log)")
        defer { client.close() }
        var answer: Response?
        let ready = Deadline(seconds: 15)
        while !ready.hasPassed {
            answer = try client.call("transact", Params.transfer("sim1", "hello"), seconds: 15)
            if answer?.frameTexts != nil { break }
            usleep(20_000)
        }
        #expect(answer?.frameTexts == ["hello"], "\(String(describing: answer)); log:\n\(s.log)")
        #expect(s.log.contains("socket activation: serving on fd 3 (control)"), "\(s.log)")
        #expect(access(s.socketPath, F_OK) != 0, "the daemon served the inherited socket and made none of its own")
        let readyMessage = try notify.waitFor("READY", "1", seconds: 5)
        #expect(readyMessage?.senderPID == child.pid, "exec keeps the pid")
        // The simulator the daemon started did not inherit the activation variables.
        let simulatorPID = try #require(Self.simulatorPID(in: s.log), "\(s.log)")
        let environment = TemporaryDirectory.contents(of: "/proc/\(simulatorPID)/environ")
        #expect(!environment.isEmpty)
        #expect(!environment.contains("LISTEN_PID=") && !environment.contains("LISTEN_FDS="), "\(environment)")
        // Nor the socket: the daemon made fd 3 close-on-exec (O_CLOEXEC is 02000000 in fdinfo's flags).
        let fdinfo = TemporaryDirectory.contents(of: "/proc/\(child.pid)/fdinfo/3")
        let flags = fdinfo.split(separator: "\n").first { $0.hasPrefix("flags:") }?.split(separator: "\t").last
        #expect(flags.flatMap { Int($0, radix: 8) }.map { $0 & 0o2_000_000 != 0 } == true, "\(fdinfo)")
        let inherited = (try? FileIO.readLink("/proc/\(simulatorPID)/fd/3")) ?? "none"
        #expect(!inherited.hasPrefix("socket:"), "the simulator's fd 3: \(inherited)")
    }

    /// The pid in the daemon's "started simulator for sim1 (echo, pid N)" line.
    static func simulatorPID(in log: String) -> Int? {
        let marker = "started simulator for sim1 (echo, pid "
        guard let line = log.split(separator: "\n").first(where: { $0.contains(marker) }) else { return nil }
        let afterPid = line.split(separator: "pid ", maxSplits: 1).last ?? ""
        return Int(afterPid.prefix { $0.isNumber })
    }
}
