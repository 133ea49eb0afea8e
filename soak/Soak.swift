import ControlProtocol
import Glibc
import IOLoop
import SystemCalls

/// The soak run: the daemon on echo accessories, a warm-up, a baseline, the measured run with
/// kills, cancels and unplugs, and the end checks (every request answered once, every accessory
/// answering, descriptors and memory back at the baseline, a clean exit, no sanitizer report).
///
/// Threading: the main thread, which runs the loop.
final class Soak {
    let world: SoakWorld
    let folder: String
    private var options: Options { world.options }
    private var report: Report { world.report }
    private var loop: IOLoop { world.loop }
    private var daemon: DaemonUnderTest?
    private var clients: [SoakClient] = []
    private var killTimer: LoopTimer?
    private var unplugTimer: LoopTimer?
    private var replugTimers: [Int: LoopTimer] = [:]
    private var daemonDied = false

    init(options: Options) throws {
        folder = try FileIO.makeTemporaryDirectory(prefix: "/tmp/accessoryd-soak-")
        let loop = try IOLoop.forCurrentThread(name: "soak")
        world = SoakWorld(
            loop: loop,
            random: SoakRandom(seed: options.seed),
            report: Report(),
            options: options,
            socketPath: folder + "/accessoryd.sock"
        )
    }

    /// Runs every phase; returns whether the run passed (no violation, the daemon lived).
    func run(daemonExecutable: String) throws -> Bool {
        defer { cleanUp() }
        for n in 0..<options.accessories {
            let accessory = EchoAccessory(number: n, folder: folder, world: world)
            try accessory.plug()
            world.accessories.append(accessory)
            world.written.append([])
        }
        let configPath = folder + "/accessoryd.yaml"
        try FileIO.writeFile(configPath, DaemonConfiguration.text(world: world, folder: folder))
        let daemon = try DaemonUnderTest(
            executable: daemonExecutable,
            configPath: configPath,
            runtimeDirectory: folder,
            logPath: folder + "/accessoryd.log"
        )
        self.daemon = daemon
        try waitForSocket(daemon)
        let watch = loop.scheduleTimer(after: .milliseconds(100), repeating: .milliseconds(100)) { [unowned self] in
            if !daemonDied, let ended = daemon.poll() {
                daemonDied = true
                report.violation("accessoryd ended during the run: \(ended)")
            }
        }
        defer { watch.cancel() }

        Output.line("warm-up: \(options.warmup) s")
        try phase(seconds: options.warmup)
        let baseline = try quiesce(daemon, "warm-up")
        let baselineKiB = daemon.residentKiB()
        Output.line("baseline: \(describe(baseline)); VmRSS \(baselineKiB) KiB")

        Output.line("soak: \(options.seconds) s, \(options.clients) clients, \(options.accessories) accessories")
        try phase(seconds: options.seconds)
        _ = try quiesce(daemon, "run")
        try compareDescriptors(daemon, with: baseline)
        compareMemory(daemon, baselineKiB: baselineKiB)
        stopDaemon(daemon)
        return report.violations == 0 && !daemonDied
    }

    // MARK: - Phases

    /// Clients and chaos for `seconds`.
    private func phase(seconds: Int) throws {
        for _ in 0..<options.clients { clients.append(try startClient()) }
        scheduleKill()
        scheduleUnplug()
        runLoop(seconds: Double(seconds))
    }

    /// Ends a phase the same way each time, so that the two measurements compare like with like:
    /// no more chaos, every accessory plugged, every client drained (each request answered,
    /// bounded) and closed, every accessory ready and answering a transact, then a settle time.
    /// Returns the daemon's descriptors by kind.
    private func quiesce(_ daemon: DaemonUnderTest, _ phase: String) throws -> [String: Int] {
        killTimer?.cancel()
        unplugTimer?.cancel()
        for (n, timer) in replugTimers {
            timer.cancel()
            replug(n)
        }
        replugTimers.removeAll()
        for client in clients { client.drain() }
        runLoop(seconds: 15) { [unowned self] in clients.contains { !$0.pending.isEmpty } }
        for client in clients {
            for (id, call) in client.pending.sorted(by: { $0.key < $1.key }).prefix(5) {
                report.violation(
                    "after the \(phase): client \(client.number) got no response to \(call.kind.name) \(id)"
                )
            }
            client.close()
        }
        clients.removeAll()
        try checkEveryAccessoryAnswers(phase)
        runLoop(seconds: 1)
        return daemon.descriptorKinds()
    }

    private func startClient() throws -> SoakClient {
        let client = try SoakClient(world: world)
        client.start()
        return client
    }

    private func scheduleKill() {
        let delay = world.random.int(options.killEveryMs)
        killTimer = loop.scheduleTimer(after: .milliseconds(delay)) { [unowned self] in
            let slot = world.random.int(0...(clients.count - 1))
            let victim = clients[slot]
            // Half the time a request goes out just before the close: it is in flight then.
            if world.random.chance(0.5) { victim.act() }
            victim.kill()
            report.count("client kills")
            do {
                clients[slot] = try startClient()
            } catch {
                report.violation("could not connect a new client: \(error)")
            }
            scheduleKill()
        }
    }

    private func scheduleUnplug() {
        let delay = world.random.int(options.unplugEveryMs)
        unplugTimer = loop.scheduleTimer(after: .milliseconds(delay)) { [unowned self] in
            let plugged = world.accessories.filter(\.isPlugged)
            if !plugged.isEmpty {
                let accessory = world.random.pick(plugged)
                accessory.unplug()
                report.count("unplugs")
                let n = accessory.number
                replugTimers[n] = loop.scheduleTimer(after: .milliseconds(world.random.int(options.absentMs))) {
                    [unowned self] in
                    replugTimers[n] = nil
                    replug(n)
                }
            }
            scheduleUnplug()
        }
    }

    private func replug(_ n: Int) {
        do {
            try world.accessories[n].plug()
            report.count("replugs")
        } catch {
            report.violation("could not replug echo\(n): \(error)")
        }
    }

    // MARK: - Checks

    /// Every accessory gets ready (bounded) and answers a transact with its own payload: none
    /// stays wedged.
    private func checkEveryAccessoryAnswers(_ phase: String) throws {
        let probe = try SoakClient(world: world)
        defer { probe.close() }
        var last: Response?
        probe.onResponse = { last = $0 }
        for accessory in world.accessories {
            let payload = Payload.make(.transact, client: 0, id: probe.peekID, random: world.random.next())
            let params = TransferParams(device: accessory.name, data: payload, timeoutMs: 2_000, waitMs: 5_000)
            last = nil
            probe.send(.transact(device: accessory.number, payload: payload, slow: false), .transact(params))
            runLoop(seconds: 10) { probe.isOpen && last == nil }
            if last?.result == nil {
                let outcome = last?.error.map { "\($0.code) \($0.message)" } ?? "no answer within 10 s"
                report.violation("after the \(phase): \(accessory.name) did not answer a final transact: \(outcome)")
            }
        }
    }

    private func compareDescriptors(_ daemon: DaemonUnderTest, with baseline: [String: Int]) throws {
        var now = daemon.descriptorKinds()
        let deadline = Clock.seconds() + 5
        while now != baseline && Clock.seconds() < deadline {
            runLoop(seconds: 0.1)
            now = daemon.descriptorKinds()
        }
        Output.line("end: \(describe(now))")
        if now != baseline {
            report.violation("descriptors did not return to the baseline: \(describe(baseline)) then \(describe(now))")
        }
    }

    private func compareMemory(_ daemon: DaemonUnderTest, baselineKiB: Int) {
        let endKiB = daemon.residentKiB()
        let allowed = max(options.rssToleranceMiB * 1024, baselineKiB * options.rssTolerancePercent / 100)
        let grown = endKiB - baselineKiB
        Output.line(
            "VmRSS: baseline \(baselineKiB) KiB, end \(endKiB) KiB (\(grown >= 0 ? "+" : "")\(grown) KiB; allowed +\(allowed) KiB)"
        )
        if options.checksRSS && grown > allowed {
            report.violation("VmRSS grew by \(grown) KiB over the baseline (allowed \(allowed) KiB)")
        }
    }

    private func stopDaemon(_ daemon: DaemonUnderTest) {
        let ended = daemon.stop(seconds: 15)
        if !daemonDied && ended != .exited(0) {
            report.violation(
                "accessoryd after SIGTERM: \(ended.map { "\($0)" } ?? "still running after 15 s (killed)")"
            )
        }
        for line in daemon.alarmingLogLines.prefix(20) {
            report.violation("daemon log: \(line)")
        }
    }

    private func describe(_ kinds: [String: Int]) -> String {
        "\(kinds.values.reduce(0, +)) fds ("
            + kinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            .joined(separator: ", ") + ")"
    }

    // MARK: - Running the loop

    /// Runs the loop for `seconds`, or less once `condition` is false (checked at least every
    /// 10 ms), or until the daemon dies.
    private func runLoop(seconds: Double, while condition: () -> Bool = { true }) {
        // The tick bounds how late `condition` is seen, and measures how late the soak's own
        // timers fire (a starved soak sends slow answers late: see the README section).
        var last = Clock.seconds()
        let tick = loop.scheduleTimer(after: .milliseconds(10), repeating: .milliseconds(10)) { [unowned self] in
            let now = Clock.seconds()
            report.noteLag(milliseconds: Int(((now - last - 0.01) * 1000).rounded()))
            last = now
        }
        defer { tick.cancel() }
        let deadline = Clock.seconds() + seconds
        loop.run { !daemonDied && Clock.seconds() < deadline && condition() }
    }

    private func waitForSocket(_ daemon: DaemonUnderTest) throws {
        let deadline = Clock.seconds() + 30
        while Clock.seconds() < deadline {
            if let fd = try? Socket.connectedUnixStream(to: .path(world.socketPath)) {
                fd.close()
                return
            }
            if let ended = daemon.poll() {
                throw SoakError("accessoryd ended (\(ended)) before listening:\n\(daemon.log)")
            }
            runLoop(seconds: 0.01)
        }
        throw SoakError("accessoryd did not listen within 30 s:\n\(daemon.log)")
    }

    private func cleanUp() {
        for client in clients { client.close() }
        clients.removeAll()
        killTimer?.cancel()
        unplugTimer?.cancel()
        for (_, timer) in replugTimers { timer.cancel() }
        for accessory in world.accessories { accessory.unplug() }
        if let daemon, daemon.poll() == nil { _ = daemon.stop(seconds: 5) }
        if options.keep {
            Output.line("kept: \(folder)")
        } else {
            Files.removeFolder(folder)
        }
    }
}
