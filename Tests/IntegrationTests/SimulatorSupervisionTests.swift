import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// The daemon's own simulators (`simulate:`): reaped when they end, restarted with the
/// accessory's back-off, and gone within a second when the daemon is killed.
///
/// Threading: each test on its own test thread; it owns the daemon it starts.
@Suite struct SimulatorSupervisionTests {
    static func accessory(_ name: String) -> String {
        "  - {name: \(name), simulate: {personality: echo}, framing: {type: line, delimiter: \"\\n\"}, "
            + "reconnect: {initial_ms: 200, max_ms: 2000}}"
    }

    /// `/proc/<pid>/status`'s `State:` letter, or nil when there is no such process.
    static func state(_ pid: pid_t) -> Character? {
        let text = TemporaryDirectory.contents(of: "/proc/\(pid)/status")
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("State:") }) else { return nil }
        return line.dropFirst("State:".count).first { $0 != " " && $0 != "\t" }
    }

    @Test func aSimulatorKilledWithSIGKILLIsReapedAndRestartedWithinItsBackOff() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.startDaemon(accessories: [Self.accessory("sim1")], ready: ["sim1"])
        let daemon = try #require(s.daemon)
        let first = try #require(daemon.child.children.first, "the daemon started no simulator")
        try #require(Self.state(first) != nil)

        let client = try s.connect()
        defer { client.close() }
        try ChildProcess.signal(first, SIGKILL)
        let killedAt = MonotonicClock.nowNanoseconds()
        let deadline = Deadline(seconds: 10)
        var answered: [String] = []
        var children: [pid_t] = []
        while !deadline.hasPassed {
            children = daemon.child.children
            if !children.isEmpty && !children.contains(first),
                let reply = try? client.call("transact", Params.transfer("sim1", "again", timeoutMs: 500)),
                reply.frameTexts == ["again"]
            {
                answered = reply.frameTexts ?? []
                break
            }
            usleep(20_000)
        }
        let elapsedMs = Double(MonotonicClock.nowNanoseconds() - killedAt) / 1e6
        print(
            "simulator pid \(first) killed: restarted as \(children), answering again after \(Int(elapsedMs)) ms (back-off 200 ms)"
        )
        #expect(answered == ["again"], "not answering within 10 s; log:\n\(s.log)")
        #expect(!children.contains(first), "the killed simulator is still the daemon's child (a zombie?)")
        #expect(
            children.allSatisfy { Self.state($0) != "Z" },
            "a zombie child: \(children.map { ($0, Self.state($0)) })"
        )
        #expect(elapsedMs < 5_000)
        #expect(
            s.log.contains("simulator for sim1 (pid \(first)) ended (killed by signal 9); restarting it in 200 ms"),
            "\(s.log)"
        )
    }

    /// A simulator killed outright cannot remove its link, which names a pty that is gone and
    /// whose number the next pty opened on the machine may get: until the new simulator makes
    /// a link of its own, there must be none, so that the accessory is absent rather than open
    /// on a stranger's pty.
    @Test func theLinkOfADeadSimulatorIsRemovedBeforeItsRestart() throws {
        let s = try Scenario()
        defer { s.finish() }
        let slow =
            "  - {name: sim1, simulate: {personality: echo}, framing: {type: line, delimiter: \"\\n\"}, "
            + "reconnect: {initial_ms: 3000, max_ms: 3000}}"
        try s.startDaemon(accessories: [slow], ready: ["sim1"])
        let daemon = try #require(s.daemon)
        let first = try #require(daemon.child.children.first, "the daemon started no simulator")
        let link = s.runtimeDirectory + "/sim/sim1"
        var status = stat()
        try #require(lstat(link, &status) == 0, "no link at \(link)")
        try ChildProcess.signal(first, SIGKILL)
        let deadline = Deadline(seconds: 2)
        while !s.log.contains("(pid \(first)) ended") && !deadline.hasPassed { usleep(10_000) }
        try #require(s.log.contains("(pid \(first)) ended"), "the daemon did not reap its simulator: \(s.log)")
        // The restart is 3 s away: the link must already be gone.
        #expect(lstat(link, &status) != 0, "the dead simulator's link is still there")
    }

    @Test func afterKill9OfTheDaemonNoSimulatorOutlivesItByASecond() throws {
        let s = try Scenario()
        defer { s.finish() }
        let config = try s.directory.write(
            "accessoryd.yaml",
            s.configuration(accessories: [Self.accessory("sim1"), Self.accessory("sim2")])
        )
        let daemon = try DaemonRun(configPath: config, socketPath: s.socketPath, in: s.directory)
        defer { daemon.child.kill() }
        try s.waitUntilReady(["sim1", "sim2"])
        let simulators = daemon.child.children
        try #require(simulators.count == 2, "\(simulators)")

        daemon.child.kill()
        let killedAt = MonotonicClock.nowNanoseconds()
        let deadline = Deadline(seconds: 5)
        // Dead: gone, or a zombie waiting for its new parent to reap it.
        func alive() -> [pid_t] { simulators.filter { Self.state($0).map { $0 != "Z" && $0 != "X" } ?? false } }
        while !alive().isEmpty && !deadline.hasPassed { usleep(5_000) }
        let elapsedMs = Double(MonotonicClock.nowNanoseconds() - killedAt) / 1e6
        print(
            "daemon killed with SIGKILL: its simulators \(simulators) gone after \(Int(elapsedMs)) ms; still alive: \(alive())"
        )
        #expect(alive().isEmpty)
        #expect(elapsedMs < 1_000)
        for pid in alive() { try? ChildProcess.signal(pid, SIGKILL) }
    }
}
