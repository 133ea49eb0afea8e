import AccessoryTestSupport
import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// Connection floods and slow clients against the built daemon: 10,000 idle connections, a
/// daemon out of file descriptors, and a request trickled in byte by byte.
///
/// Threading: each test runs on its own test thread and owns its scenario's processes.
@Suite struct ConnectionFloodTests {
    /// Connects, retrying (bounded) while the listen backlog is full.
    static func connect(_ s: Scenario, seconds: Double = 10) throws -> RPCClient {
        let deadline = Deadline(seconds: seconds)
        while true {
            do {
                return try s.connect()
            } catch let error as SyscallError where error.errno == .resourceTemporarilyUnavailable {
                if deadline.hasPassed { throw HarnessError("the listen backlog stayed full for \(seconds) s") }
                usleep(1_000)
            }
        }
    }

    /// Raises this process's descriptor limit to at least `needed` (up to the hard limit).
    static func raiseDescriptorLimit(to needed: rlim_t) throws {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw HarnessError("getrlimit failed") }
        guard limit.rlim_cur < needed else { return }
        guard limit.rlim_max >= needed else {
            throw HarnessError("RLIMIT_NOFILE hard limit \(limit.rlim_max) < \(needed) needed for the test")
        }
        limit.rlim_cur = needed
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { throw HarnessError("setrlimit failed") }
    }

    @Test func tenThousandIdleConnectionsTheLimitHoldsAndANewClientIsServedOnceOthersClose() throws {
        try Self.raiseDescriptorLimit(to: 10_500)
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        // No reserve: this test's clients are root, which could use it (ConnectionSlotTests).
        try s.startDaemon(
            limits: [("max_clients", 256), ("reserved_connections", 0)],
            accessories: [s.lineAccessory("echo")]
        )
        let pid = try #require(s.daemon?.pid)
        let clock = Stopwatch()

        // The first 256 are admitted (each answers a call) and then left idle.
        var admitted = try (0..<256).map { _ in try Self.connect(s) }
        for client in admitted { _ = try client.result("devices.list") }
        // The other 9,744 are refused with an error line and closed; we keep our ends open.
        var refused: [RPCClient] = []
        var refusals = 0
        while refused.count < 10_000 - admitted.count {
            let batch = try (0..<min(500, 10_000 - admitted.count - refused.count)).map { _ in try Self.connect(s) }
            for client in batch {
                let r = try client.nextResponse()
                if r.code == -32000 && r.error?.message.contains("too many clients") == true { refusals += 1 }
                #expect(client.waitUntilClosed(seconds: 5))
            }
            refused += batch
        }
        let floodSeconds = clock.elapsed
        #expect(refusals == 9_744)
        let status = try admitted[0].result("daemon.status")
        #expect(status["clients"]?.intValue == 256)
        let descriptors = ProcFS.openDescriptors(pid) ?? -1
        print(
            "10,000 connections in \(floodSeconds) s: 256 admitted, \(refusals) refused with an error line; "
                + "daemon holds \(descriptors) fds"
        )
        #expect(descriptors > 256 && descriptors < 256 + 64, "the daemon holds \(descriptors) descriptors")

        // While full, a newcomer is refused too; once some admitted clients leave, it is served.
        let early = try Self.connect(s)
        #expect(try early.nextResponse().code == -32000)
        for client in admitted.prefix(10) { client.close() }
        admitted.removeFirst(10)
        let deadline = Deadline(seconds: 10)
        var served = false
        while !served && !deadline.hasPassed {
            let newcomer = try Self.connect(s)
            // Until the daemon has seen the others go, a newcomer may still be refused: an error
            // line and a closed connection. That is a retry, not a failure.
            if let r = try? newcomer.call("transact", Params.transfer("echo", "my turn")) {
                served = r.frameTexts == ["my turn"]
            }
            newcomer.close()
            if !served { usleep(20_000) }
        }
        #expect(served, "no new client was served after 10 admitted clients left")
        #expect(try admitted.last?.call("transact", Params.transfer("echo", "idle one")).frameTexts == ["idle one"])
        for client in admitted + refused + [early] { client.close() }
    }

    @Test func outOfDescriptorsTheDaemonBacksOffWithoutSpinningAndRecovers() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        // 64 descriptors and room for 1,000 clients: accept fails with EMFILE long before the limit.
        s.launcher = [
            try #require(ExternalProgram.path("prlimit"), "\(ExternalProgram.missing("prlimit") ?? "")"),
            "--nofile=64:64", "--",
        ]
        try s.startDaemon(limits: [("max_clients", 1000)], accessories: [s.lineAccessory("echo")])
        let pid = try #require(s.daemon?.pid)
        var clients = try (0..<90).map { _ in try Self.connect(s) }
        // Wait until the daemon has used every descriptor and says so.
        let filled = Deadline(seconds: 10)
        while !(s.log.contains("pausing new connections") && (ProcFS.openDescriptors(pid) ?? 0) >= 63) {
            if filled.hasPassed { break }
            usleep(10_000)
        }
        #expect(s.log.contains("pausing new connections"), "\(s.log)")
        // Pending connections sit in the backlog and the listening socket stays readable: a loop
        // that retried at once would burn a CPU. Measure the daemon's CPU time over a second.
        let cpuBefore = try #require(ProcFS.cpuSeconds(pid))
        usleep(1_000_000)
        let cpuUsed = try #require(ProcFS.cpuSeconds(pid)) - cpuBefore
        print("EMFILE: daemon holding \(ProcFS.openDescriptors(pid) ?? -1) fds (limit 64) used \(cpuUsed) s CPU in 1 s")
        #expect(cpuUsed < 0.25, "the daemon used \(cpuUsed) s of CPU in 1 s while out of descriptors")

        // Free descriptors: every client but the last 10 leaves; a newcomer is then served.
        for client in clients.prefix(80) { client.close() }
        clients.removeFirst(80)
        let recovered = Deadline(seconds: 15)
        var served = false
        while !served && !recovered.hasPassed {
            let newcomer = try Self.connect(s)
            served =
                (try? newcomer.call("transact", Params.transfer("echo", "back"), seconds: 5))?.frameTexts == ["back"]
            newcomer.close()
        }
        #expect(served, "not served after descriptors were freed; log:\n\(s.log)")
        #expect(s.log.contains("again after"), "\(s.log)")
        for client in clients { client.close() }
    }

    @Test func aRequestTrickledInByteByByteOverASecondIsAnsweredAndOthersAreNotHeldUp() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(accessories: [s.lineAccessory("echo")])
        let slow = try s.connect()
        let other = try s.connect()
        let line = RPCClient.requestLine(id: .int(7), method: "transact", params: Params.transfer("echo", "trickle"))
        let pause = UInt32(1_200_000 / line.count)
        let clock = Stopwatch()
        var worst = 0.0
        for (i, byte) in line.enumerated() {
            try slow.send(raw: [byte])
            usleep(pause)
            if i % 10 == 0 {
                // Meanwhile another client is answered at once.
                let call = Stopwatch()
                #expect(try other.call("transact", Params.transfer("echo", "b\(i)")).frameTexts == ["b\(i)"])
                worst = max(worst, call.elapsed)
            }
        }
        #expect(clock.elapsed >= 1.0)
        #expect(try slow.response(to: .int(7)).frameTexts == ["trickle"])
        print("byte by byte: \(line.count) bytes over \(clock.elapsed) s; slowest other call \(worst) s")
        #expect(worst < 1.0)
        slow.close()
        other.close()
    }
}
