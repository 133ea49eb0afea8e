import ControlProtocol
import Glibc
import Testing

/// The batch-reply attack: a hostile user (uid 65534) opens connections that each send one
/// 52 KB line holding a batch of 1,024 `rpc.discover` calls (about 32 MB of reply) and never
/// read. Every byte the daemon holds for a client counts against `client_outbound_bytes`, and a
/// batch whose reply could not fit is refused whole before it runs: the daemon's peak memory
/// stays within the per-client cap times the connections, and a well-behaved client is served.
///
/// Threading: the test's thread; it owns the daemon, the simulator and the attacker child.
@Suite struct BatchReplyMemoryTests {
    static let connections = 12
    static let calls = 1_024
    /// `client_outbound_bytes`' default, KiB.
    static let capKiB = 1_024

    @Test(.enabled(if: PermissionTests.unavailableReason == nil, "\(PermissionTests.unavailableReason ?? "")"))
    func batchRepliesToClientsThatNeverReadStayWithinTheOutboundCap() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(accessories: [s.lineAccessory("echo")])
        let pid = try #require(s.daemon?.pid)
        let client = try s.connect()
        for i in 0..<50 { _ = try client.call("transact", Params.transfer("echo", "warm \(i)")) }
        let counted = try Self.counters(client)
        let residentBefore = try #require(ProcFS.residentKiB(pid))

        let attacker = try HostileClients.start(
            s,
            uid: 65534,
            mode: "discover-batch",
            count: Self.connections,
            calls: Self.calls,
            label: "batches"
        )
        defer { attacker.kill() }
        let ready = HostileClients.waitUntilReady(attacker)
        #expect(ready?.held == Self.connections, "attacker: \(attacker.stdout) \(attacker.stderr)")
        // Every batch line has been handled once each was refused (the fix) or each of its calls
        // was decoded (before it); then the peak is read once it has stopped growing.
        let deadline = Deadline(seconds: 60)
        while try !Self.batchesHandled(client, since: counted) && !deadline.hasPassed { usleep(20_000) }
        var peak = ProcFS.peakResidentKiB(pid) ?? Int.max
        for _ in 0..<20 {
            usleep(250_000)
            let now = ProcFS.peakResidentKiB(pid) ?? Int.max
            if now == peak { break }
            peak = now
        }
        let residentAfter = ProcFS.residentKiB(pid) ?? Int.max
        print(
            "batch replies to \(Self.connections) clients that never read: daemon RSS \(residentBefore) KiB "
                + "before, \(residentAfter) KiB after, peak \(peak) KiB"
        )
        // At most one cap of unsent bytes per connection, plus room for the daemon's own
        // allocations (measured: a few hundred KiB). Before every byte was counted, the
        // 32 MB replies were all queued at once: hundreds of MiB.
        let bound = Self.connections * Self.capKiB + 16_384
        #expect(peak - residentBefore < bound, "peak RSS \(peak) KiB, \(residentBefore) KiB before")
        #expect(s.daemon?.child.isRunning == true, "the daemon was killed: \(s.log)")

        // A well-behaved client is served while the attacker holds its connections.
        let served = try client.call("transact", Params.transfer("echo", "after the attack"), seconds: 10)
        #expect(served.frameTexts == ["after the attack"], "\(served)")
        _ = attacker.terminate(seconds: 10)
        client.close()
    }

    /// `requests_decoded` and `batches_refused` of `daemon.status` (asked as root).
    static func counters(_ client: RPCClient) throws -> (decoded: Int, refused: Int) {
        let status = try client.result("daemon.status", seconds: 30)
        let decoded = status["requests_decoded"]?.int64Value ?? 0
        let refused = status["batches_refused"]?.int64Value ?? 0
        return (Int(decoded), Int(refused))
    }

    /// Whether every attacking batch was refused, or had every call decoded, since `before`.
    static func batchesHandled(_ client: RPCClient, since before: (decoded: Int, refused: Int)) throws -> Bool {
        let now = try counters(client)
        return now.refused - before.refused >= connections || now.decoded - before.decoded >= connections * calls
    }
}
