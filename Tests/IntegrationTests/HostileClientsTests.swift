import AccessoryTestSupport
import ControlProtocol
import Glibc
import Testing

/// Several hostile users at once (each a uid of its own through `setpriv`, with no access to
/// the accessory): batches of `rpc.discover` that are never read, batches of `transact`s,
/// connections that never send a byte or stall in the middle of a line, and a client that
/// pipelines requests without reading, reconnecting each time it is dropped. Meanwhile a
/// well-behaved client's `transact`s keep a bounded latency, the daemon's memory stays bounded,
/// and the daemon is never killed.
///
/// Bounded: the attack lasts ``attackSeconds`` (the well-behaved client works until it ends),
/// and the well-behaved client sends at most ``transacts`` requests.
///
/// Threading: the test's thread; it owns the daemon, the simulator and the attacker children.
@Suite struct HostileClientsTests {
    static let attackSeconds = 8
    static let transacts = 100_000
    /// The asserted p99 of a well-behaved `transact` under attack. Measured on a 2-core VM
    /// shared with two builds: 4.6 to 9.5 ms over about 4,000 `transact`s (at most 2.2 ms without
    /// the attack; the slowest one up to 0.7 s, as the attack starts); the bound is generous so
    /// that a noisy machine does not fail it.
    static let p99BoundMs = 500.0

    @Test(.enabled(if: PermissionTests.unavailableReason == nil, "\(PermissionTests.unavailableReason ?? "")"))
    func aWellBehavedClientIsServedWhileSeveralUsersAttack() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(
            limits: [("idle_connection_timeout_ms", 2_000)],
            accessories: [s.lineAccessory("echo", "access: {users: [0]}")]
        )
        let pid = try #require(s.daemon?.pid)
        let client = try s.connect()
        let quiet = try Self.latencies(client, count: 200, label: "quiet")
        let residentBefore = try #require(ProcFS.residentKiB(pid))

        let attacks: [(uid: UInt32, mode: String, count: Int, calls: Int)] = [
            (65534, "discover-batch", 48, 1_024),
            (65533, "transact-batch", 32, 200),
            (65532, "idle", 64, 0),
            (65531, "partial", 32, 0),
            (65530, "flood", 1, 0),
        ]
        var children: [ChildRun] = []
        defer { for child in children { child.kill() } }
        for a in attacks {
            children.append(
                try HostileClients.start(
                    s,
                    uid: a.uid,
                    mode: a.mode,
                    count: a.count,
                    calls: a.calls,
                    seconds: Self.attackSeconds,
                    label: a.mode
                )
            )
        }
        // A connect may fail while the listen backlog is full (the flood): what each holds.
        let held = children.map { HostileClients.waitUntilReady($0)?.held ?? 0 }
        let silent = zip(attacks, held).filter { ["idle", "partial"].contains($0.0.mode) }.reduce(0) { $0 + $1.1 }
        #expect(silent >= 48, "idle and stalled connections held: \(held)")
        // The well-behaved client works through the attack, until the attackers are done.
        let end = Deadline(seconds: Double(Self.attackSeconds) + 30)
        var samples: [Double] = []
        var failures: [String] = []
        while samples.count < Self.transacts && children.contains(where: \.isRunning) && !end.hasPassed {
            let started = MonotonicNow.seconds()
            let r = try client.call("transact", Params.transfer("echo", "t \(samples.count)"), seconds: 10)
            samples.append((MonotonicNow.seconds() - started) * 1000)
            if r.frameTexts != ["t \(samples.count - 1)"] { failures.append("\(r)") }
        }
        for (child, a) in zip(children, attacks) {
            #expect(child.wait(seconds: 30) == .exited(0), "\(a.mode): \(child.stdout) \(child.stderr)")
        }
        let peak = ProcFS.peakResidentKiB(pid) ?? Int.max
        let status = try client.result("daemon.status")
        let attacked = Self.summary(samples)
        print(
            "hostile clients: well-behaved transact p50/p99/max \(quiet.p50)/\(quiet.p99)/\(quiet.max) ms quiet, "
                + "\(attacked.p50)/\(attacked.p99)/\(attacked.max) ms under attack (\(samples.count) transacts); "
                + "daemon RSS \(residentBefore) KiB before, peak \(peak) KiB; "
                + "flood: \(children.last?.stdout.split(separator: "\n").last ?? "")"
        )
        #expect(failures.isEmpty, "\(failures.count) transacts failed, first: \(failures.first ?? "")")
        #expect(samples.count >= 1_000, "only \(samples.count) transacts in the attack")
        #expect(attacked.p99 < Self.p99BoundMs, "p99 \(attacked.p99) ms")
        #expect(s.daemon?.child.isRunning == true, "the daemon was killed: \(s.log)")
        // Memory: the refused batches hold nothing; every other connection at most its cap
        // (1 MiB); measured a few MiB of growth.
        let connections = attacks.reduce(0) { $0 + $1.count }
        #expect(peak - residentBefore < connections * 1_024 / 4 + 32_768, "peak \(peak) KiB")
        #expect(status["batches_refused"]?.int64Value ?? 0 >= held[0], "\(status); held: \(held)")
        #expect(status["clients_timed_out"]?.int64Value ?? 0 >= silent, "\(status); held: \(held)")
        client.close()
    }

    /// `count` sequential `transact`s: their latencies' summary, in milliseconds.
    static func latencies(_ client: RPCClient, count: Int, label: String) throws -> (
        p50: Double, p99: Double, max: Double
    ) {
        var samples: [Double] = []
        for i in 0..<count {
            let started = MonotonicNow.seconds()
            _ = try client.call("transact", Params.transfer("echo", "\(label) \(i)"))
            samples.append((MonotonicNow.seconds() - started) * 1000)
        }
        return summary(samples)
    }

    /// The median, 99th percentile and maximum of `samples`, rounded to 0.1.
    static func summary(_ samples: [Double]) -> (p50: Double, p99: Double, max: Double) {
        guard !samples.isEmpty else { return (0, 0, 0) }
        let sorted = samples.sorted()
        func at(_ q: Double) -> Double {
            (sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))] * 10).rounded() / 10
        }
        return (at(0.5), at(0.99), at(1.0))
    }
}
