import ControlProtocol
import Testing

/// What `device.status` reports, against the built daemon: request latency percentiles measured
/// against known simulator delays, and an accessory switched off with `enabled: false`.
///
/// Threading: each test runs on its own test thread and owns its scenario's processes.
@Suite struct StatusTests {
    @Test func latencyPercentilesFollowTheAccessorysKnownDelays() throws {
        let s = try Scenario()
        defer { s.finish() }
        // Every reply after 40 ms; every 5th one 200 ms later still (240 ms): of 20 requests, 16
        // take about 40 ms and 4 about 240 ms. The median is a fast one; p99 a slow one.
        try s.simulator(
            "timed",
            ["--personality", "echo", "--delay-ms", "40", "--late-ms", "200", "--late-every", "5"]
        )
        try s.startDaemon(accessories: [s.lineAccessory("timed", "response: {timeout_ms: 5000}")])
        let client = try s.connect()
        defer { client.close() }

        let before = try client.result("device.status", Params.device("timed"))
        #expect(before["counters"]?["latency_p50_ms"] == nil, "no percentile before the first request")

        for i in 1...20 {
            let reply = try client.call("transact", Params.transfer("timed", "request \(i)"))
            #expect(reply.frameTexts == ["request \(i)"])
        }
        let counters = try #require(try client.result("device.status", Params.device("timed"))["counters"])
        let p50 = try #require(counters["latency_p50_ms"]?.doubleValue)
        let p99 = try #require(counters["latency_p99_ms"]?.doubleValue)
        // Lower bounds are exact (a reply never comes before its delay); upper bounds only separate
        // the two groups, so that a loaded machine cannot fail the test.
        #expect(p50 >= 40 && p50 < 240, "p50 \(p50) ms: a 40 ms request")
        #expect(p99 >= 240 && p99 < 2000, "p99 \(p99) ms: a 240 ms request")
        print("latency over 20 requests (16 × 40 ms, 4 × 240 ms): p50 \(p50) ms, p99 \(p99) ms")
    }

    @Test func aDisabledAccessoryRefusesRequestsAndSaysSo() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("on")
        try s.simulator("off")
        try s.startDaemon(
            accessories: [s.lineAccessory("on"), s.lineAccessory("off", "enabled: false")],
            ready: ["on"]
        )
        let client = try s.connect()
        defer { client.close() }

        let status = try client.result("device.status", Params.device("off"))
        #expect(status["state"] == "disabled")
        #expect(status["reason"]?.stringValue?.contains("disabled in the configuration") == true, "\(status)")
        #expect(status["counters"]?["open_attempts"] == 0, "a disabled accessory is never opened")
        #expect(try s.state(of: "off", via: client) == "disabled")

        // Refused at once, even with a wait: it will not become ready by itself.
        for params in [Params.transfer("off", "hello"), Params.transfer("off", "hello", waitMs: 5000)] {
            let watch = Stopwatch()
            let refused = try client.call("transact", params)
            #expect(refused.code == ErrorCode.deviceUnavailable.rawValue, "got \(refused)")
            #expect(refused.error?.message == "off is disabled: disabled in the configuration")
            #expect(watch.elapsed < 2, "refused after \(watch.elapsed) s")
        }
        #expect(try client.call("write", Params.transfer("off", "hello")).code == ErrorCode.deviceUnavailable.rawValue)
        #expect(
            try client.call("read", ["device": "off", "timeout_ms": 100]).code == ErrorCode.deviceUnavailable.rawValue
        )

        // The other accessory is served as usual.
        #expect(try client.call("transact", Params.transfer("on", "still here")).frameTexts == ["still here"])
        let daemon = try client.result("daemon.status")
        #expect(daemon["accessories"] == 2)
        #expect(daemon["accessories_ready"] == 1)
    }
}
