import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// A late reply is never handed to the next request: after a timeout, a cancel or a client
/// leaving with a request in flight, the daemon discards what arrives late before the next
/// request starts.
///
/// After a cancel or a client leaving, the daemon knows an answer is still due (until the
/// request's timeout) and waits for it, whatever the settle time. After a timeout it cannot know
/// how late the answer will be: it discards bytes until the line has been quiet for
/// `resync.settle_ms`, so that setting must outlast the lateness (here the answer comes 300 ms
/// after the timeout; with the default 50 ms it would be handed to the next request).
///
/// Threading: each test runs on its own test thread and owns its scenario's processes.
@Suite struct ResyncTests {
    @Test func theRequestAfterATimeoutGetsItsOwnAnswer() throws {
        let s = try Scenario()
        defer { s.finish() }
        // Every second reply is held back 600 ms; the daemon gives up after 300 ms.
        try s.simulator("late", ["--personality", "echo", "--late-ms", "600", "--late-every", "2"])
        try s.startDaemon(accessories: [
            s.lineAccessory("late", "response: {timeout_ms: 300}, resync: {settle_ms: 600}")
        ])
        let client = try s.connect()
        #expect(try client.call("transact", Params.transfer("late", "request 1")).frameTexts == ["request 1"])
        let clock = Stopwatch()
        let timedOut = try client.call("transact", Params.transfer("late", "request 2"))
        #expect(timedOut.code == 1003)
        #expect(clock.elapsed >= 0.29, "timed out after \(clock.elapsed) s")
        let third = try client.call("transact", Params.transfer("late", "request 3"))
        #expect(third.frameTexts == ["request 3"], "the late reply to request 2 leaked: \(third)")
        let counters = try client.result("device.status", Params.device("late"))["counters"]
        #expect(counters?["requests_ok"] == 2)
        #expect(counters?["requests_timed_out"] == 1)
        client.close()
    }

    @Test func theRequestAfterACancelledOneGetsItsOwnAnswer() throws {
        let s = try Scenario()
        defer { s.finish() }
        // The default settle time (50 ms) is much shorter than the accessory's 300 ms answer.
        try s.simulator("slow", ["--personality", "echo", "--delay-ms", "300"])
        try s.startDaemon(accessories: [s.lineAccessory("slow")])
        let client = try s.connect()
        let observer = try s.connect()
        let executing = try client.send("transact", Params.transfer("slow", "cancelled while executing"))
        try waitForQueueDepth(1, of: "slow", via: observer)
        #expect(try client.result("cancel", ["id": executing.json])["cancelled"] == true)
        #expect(try client.response(to: executing).code == 1004)
        let next = try client.call("transact", Params.transfer("slow", "next"))
        #expect(next.frameTexts == ["next"], "the cancelled request's answer leaked: \(next)")
        client.close()
        observer.close()
    }

    @Test func aClientLeavingMidRequestDoesNotDisturbTheNext() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("slow", ["--personality", "echo", "--delay-ms", "300"])
        try s.startDaemon(accessories: [s.lineAccessory("slow")])
        let observer = try s.connect()

        let leaving = try s.connect()
        try leaving.send("transact", Params.transfer("slow", "abandoned"))
        try leaving.send("transact", Params.transfer("slow", "abandoned too"))
        // Wait until its first request executes, then go away without reading anything.
        try waitForQueueDepth(2, of: "slow", via: observer)
        leaving.close()

        // Another client: it must get its own answers, never the one the leaver left behind.
        let next = try s.connect()
        #expect(try next.call("transact", Params.transfer("slow", "mine")).frameTexts == ["mine"])
        #expect(try next.call("transact", Params.transfer("slow", "mine again")).frameTexts == ["mine again"])
        let status = try observer.result("daemon.status")
        #expect(status["clients"] == 2)
        #expect(status["requests_in_flight"] == 0)
        let counters = try observer.result("device.status", Params.device("slow"))["counters"]
        #expect(counters?["requests_ok"] == 2)
        #expect(counters?["requests_cancelled"] == 2)
        observer.close()
        next.close()
    }

    /// Polls `device.status` (bounded) until the accessory has `depth` requests queued or executing.
    func waitForQueueDepth(_ depth: Int, of device: String, via client: RPCClient) throws {
        let deadline = Deadline(seconds: 10)
        while try client.result("device.status", Params.device(device))["queue_depth"]?.intValue != depth {
            if deadline.hasPassed { throw HarnessError("\(device) never had \(depth) requests queued") }
            usleep(2_000)
        }
    }
}
