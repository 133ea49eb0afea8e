import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// A late reply is never handed to the next request, with the default configuration: after a
/// timeout, a cancel or a client leaving with a request in flight, the daemon awaits the owed
/// answer for the late window (the request's timeout, at least 1 s, at most `resync.late_ms`),
/// discards it, lets the line settle, and only then starts the next request. With a probe, it
/// proves the line is back in step however late the old answer is.
///
/// Threading: each test runs on its own test thread and owns its scenario's processes.
@Suite struct ResyncTests {
    @Test func theRequestAfterATimeoutGetsItsOwnAnswer() throws {
        let s = try Scenario()
        defer { s.finish() }
        // Every second reply is held back 600 ms; the daemon gives up after 300 ms, so that
        // reply comes one timeout late. The resync settings are the defaults.
        try s.simulator("late", ["--personality", "echo", "--late-ms", "600", "--late-every", "2"])
        try s.startDaemon(accessories: [s.lineAccessory("late", "response: {timeout_ms: 300}")])
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
        #expect(counters?["resyncs"] == 1)
        #expect(
            counters?["resync_discarded_frames"] == 1,
            "the late answer, discarded: \(String(describing: counters))"
        )
        client.close()
    }

    @Test func aDeviceOneTimeoutLateNeverHandsItsAnswerOnWithTheDefaults() throws {
        let s = try Scenario()
        defer { s.finish() }
        // Answers every second request 500 ms late; the timeout is 250 ms: one timeout late.
        try s.simulator("late", ["--personality", "echo", "--late-ms", "500", "--late-every", "2"])
        try s.startDaemon(accessories: [s.lineAccessory("late", "response: {timeout_ms: 250}")])
        let client = try s.connect()
        let watcher = try s.connect()
        _ = try watcher.result("subscribe", ["device": "late", "events": ["state"]])
        for round in 0..<3 {
            let answered = "answered \(round)"
            #expect(try client.call("transact", Params.transfer("late", answered)).frameTexts == [answered])
            #expect(try client.call("transact", Params.transfer("late", "late \(round)")).code == 1003)
        }
        let last = try client.call("transact", Params.transfer("late", "last"))
        #expect(last.frameTexts == ["last"], "a late answer leaked: \(last)")
        // Each resync was announced, and its end too.
        for _ in 0..<3 {
            _ = try waitForState(watcher, "late", "resyncing", seconds: 2)
            _ = try waitForState(watcher, "late", "ready", seconds: 2)
        }
        let counters = try client.result("device.status", Params.device("late"))["counters"]
        #expect(counters?["resyncs"] == 3)
        #expect(counters?["resync_discarded_frames"] == 3)
        client.close()
        watcher.close()
    }

    @Test func aMuteDeviceAfterACancelFreesTheQueueWithinTheLateWindowAndSaysWhy() throws {
        let s = try Scenario()
        defer { s.finish() }
        // Every second reply never comes. The request's timeout (10 s) is longer than the late
        // window (`late_ms: 1500`): the queue is free again 1.5 s after the cancel, not 10 s.
        try s.simulator("mute", ["--personality", "echo", "--drop-every", "2"])
        try s.startDaemon(accessories: [
            s.lineAccessory("mute", "response: {timeout_ms: 10000}, resync: {late_ms: 1500}")
        ])
        let client = try s.connect()
        let observer = try s.connect()
        #expect(try client.call("transact", Params.transfer("mute", "one")).frameTexts == ["one"])
        let unanswered = try client.send("transact", Params.transfer("mute", "never answered"))
        try waitForQueueDepth(1, of: "mute", via: observer)
        // It executes: its frame is out (the second, after "one").
        #expect(
            try waitForStatus(observer, "mute") { $0["counters"]?["frames_out"]?.intValue == 2 },
            "the request's frame never went out"
        )
        let cancelledAt = Stopwatch()
        #expect(try client.result("cancel", ["id": unanswered.json])["cancelled"] == true)
        #expect(try client.response(to: unanswered).code == 1004)
        let status = try observer.result("device.status", Params.device("mute"))
        #expect(status["state"]?.stringValue == "resyncing", "\(status)")
        #expect(status["resync"]?["waiting_for"]?.stringValue == "late answer", "\(status)")
        let until = status["resync"]?["until_ms"]?.intValue ?? -1
        #expect(until > 1000 && until <= 1500, "\(status)")
        let reason = status["reason"]?.stringValue
        #expect(reason == "waiting for the late answer after a transact that was cancelled", "\(status)")
        // A request that will wait 200 ms is told so when the resync outlasts it.
        let impatient = Stopwatch()
        let refused = try observer.call("transact", Params.transfer("mute", "impatient", waitMs: 200))
        #expect(refused.code == 1003, "\(refused)")
        #expect(refused.error?.message.contains("the resync to end") == true, "\(refused)")
        #expect(impatient.elapsed < 1, "waited \(impatient.elapsed) s")
        let next = try client.call("transact", Params.transfer("mute", "three"))
        let freedAfter = cancelledAt.elapsed
        #expect(next.frameTexts == ["three"])
        #expect(freedAfter >= 1.4 && freedAfter < 4, "served \(freedAfter) s after the cancel")
        print("mute device, late_ms 1500: the next request answered \(Int(freedAfter * 1000)) ms after the cancel")
        #expect(try s.state(of: "mute", via: observer) == "ready")
        client.close()
        observer.close()
    }

    @Test func theProbeProvesSyncOnADeviceAnsweringThreeTimeoutsLate() throws {
        let s = try Scenario()
        defer { s.finish() }
        // Every second reply comes 600 ms late: three timeouts of 200 ms. No late window: only
        // the probe (answered in order, behind the late answer) shows when the line is in step.
        try s.simulator("laggy", ["--personality", "echo", "--late-ms", "600", "--late-every", "2"])
        try s.startDaemon(accessories: [
            s.lineAccessory(
                "laggy",
                #"response: {timeout_ms: 200}, resync: {late_ms: 0, probe: {send: "PING", expect: "^PING$", timeout_ms: 200}}"#
            )
        ])
        let client = try s.connect()
        #expect(try client.call("transact", Params.transfer("laggy", "one")).frameTexts == ["one"])
        #expect(try client.call("transact", Params.transfer("laggy", "two")).code == 1003)
        // Whatever the lateness of the replies now, this one waits long enough for its own.
        let three = try client.call("transact", Params.transfer("laggy", "three", timeoutMs: 3000))
        #expect(three.frameTexts == ["three"], "a late answer or a probe's answer leaked: \(three)")
        let counters = try client.result("device.status", Params.device("laggy"))["counters"]
        let failures = counters?["probe_failures"]?.intValue ?? 0
        #expect(failures >= 1, "the first probe waits behind the late answer: \(String(describing: counters))")
        // Discarded: the late answer and one answer per probe sent (frames out: 3 requests and
        // the probes), so that none is left over for a request.
        let probes = (counters?["frames_out"]?.intValue ?? 0) - 3
        #expect(probes >= 2, "\(String(describing: counters))")
        #expect(counters?["resync_discarded_frames"]?.intValue == probes + 1, "\(String(describing: counters))")
        #expect(s.log.contains("resync probe attempt 1 failed"), "\(s.log)")
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

    @Test func unsolicitedFramesReachSubscribersDuringAResync() throws {
        let s = try Scenario()
        defer { s.finish() }
        // A modem that never answers its second command, and rings every 100 ms.
        try s.simulator("modem", ["--personality", "at-modem", "--drop-every", "2", "--unsolicited-ms", "100"])
        try s.startDaemon(accessories: [
            s.lineAccessory(
                "modem",
                framing: #"{type: line, delimiter: "\r\n"}"#,
                #"response: {until: '^(OK|ERROR)$', timeout_ms: 300}, unsolicited: ['^RING$', '^\+CMTI']"#
            )
        ])
        let client = try s.connect()
        let listener = try s.connect()
        _ = try listener.result("subscribe", ["device": "modem", "events": ["data"]])
        #expect(try client.call("transact", Params.transfer("modem", "AT")).code == nil)
        #expect(try client.call("transact", Params.transfer("modem", "AT")).code == 1003)
        // The late window (1 s) has begun: other frames are discarded, unsolicited ones are not.
        #expect(try s.state(of: "modem", via: client) == "resyncing")
        _ = try listener.messages(during: 0.05)  // what came before the timeout is not counted
        let during = try listener.messages(during: 0.5).filter {
            if case .notification(let n) = $0 { return n.method == "device.data" }
            return false
        }
        #expect(try s.state(of: "modem", via: client) == "resyncing")
        #expect(during.count >= 2, "device.data during the resync: \(during)")
        client.close()
        listener.close()
    }

    /// Polls `device.status` (bounded) until the accessory has `depth` requests queued or executing.
    func waitForQueueDepth(_ depth: Int, of device: String, via client: RPCClient) throws {
        guard try waitForStatus(client, device, seconds: 10, { $0["queue_depth"]?.intValue == depth }) else {
            throw HarnessError("\(device) never had \(depth) requests queued")
        }
    }
}
