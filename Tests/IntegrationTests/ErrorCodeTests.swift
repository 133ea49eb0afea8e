import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// Every error code of the control protocol, each provoked for real against the built daemon.
///
/// Threading: each test runs on its own test thread and owns its scenario's processes.
@Suite struct ErrorCodeTests {
    @Test func protocolErrorsAnswerAndTheConnectionLivesOn() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(accessories: [s.lineAccessory("echo")])
        let client = try s.connect()

        func rejection(_ line: String) throws -> Response {
            try client.send(line: line)
            return try client.nextResponse()
        }
        // -32700: not JSON; the id cannot be known.
        let parse = try rejection(#"{"jsonrpc":"2.0","id":1,"method":"devices.list""#)
        #expect(parse.code == -32700)
        #expect(parse.id == nil)
        // -32600: JSON, but not a request.
        #expect(try rejection("[]").code == -32600)  // an empty batch
        #expect(try rejection(#""devices.list""#).code == -32600)
        #expect(try rejection(#"{"jsonrpc":"2.0","method":1}"#).code == -32600)  // no id, not a request either
        let badVersion = try rejection(#"{"jsonrpc":"1.0","id":3,"method":"devices.list"}"#)
        #expect(badVersion.code == -32600)
        #expect(badVersion.id == .int(3))
        // -32601: no such method; the id is echoed.
        let unknown = try client.call("devices.lst")
        #expect(unknown.code == -32601)
        #expect(unknown.error?.message.contains("devices.list") == true)
        // -32602: the method exists, its params are wrong.
        #expect(try client.call("transact", ["device": 5, "data": "x"]).code == -32602)
        #expect(try client.call("transact", ["device": "echo"]).code == -32602)
        #expect(try client.call("transact", ["device": "echo", "data": "x", "data_base64": "eA=="]).code == -32602)
        #expect(try client.call("transact", ["device": "echo", "data_base64": "not base64!"]).code == -32602)
        #expect(try client.call("transact", ["device": "echo", "data": "x", "timeout_ms": -1]).code == -32602)
        #expect(try client.call("transact", ["device": "echo", "data": "x", "colour": "blue"]).code == -32602)
        #expect(try client.call("read", ["device": "echo", "max_frames": "three"]).code == -32602)
        #expect(try client.call("cancel").code == -32602)

        // After all that, the same connection is served normally.
        #expect(try client.call("transact", Params.transfer("echo", "still here")).frameTexts == ["still here"])
        client.close()
    }

    @Test func unknownDeviceAndUnavailableDevice() throws {
        let s = try Scenario()
        defer { s.finish() }
        let missing = s.directory.file("no-such-tty")
        try s.startDaemon(accessories: [s.lineAccessory("ghost", path: missing)], ready: [])
        let client = try s.connect()

        for method in ["transact", "write"] {
            let r = try client.call(method, Params.transfer("nope", "x"))
            #expect(r.code == 1001)
            #expect(r.error?.message.contains("nope") == true)
        }
        #expect(try client.call("device.status", Params.device("nope")).code == 1001)
        #expect(try client.call("lock", Params.device("nope")).code == 1001)
        #expect(try client.call("read", Params.device("nope")).code == 1001)

        // A configured path that does not exist: listed as absent, requests get 1002 at once.
        #expect(try s.state(of: "ghost", via: client) == "absent")
        let unavailable = try client.call("transact", Params.transfer("ghost", "x"))
        #expect(unavailable.code == 1002)
        #expect(unavailable.error?.message.contains("does not exist") == true)
        let status = try client.result("device.status", Params.device("ghost"))
        #expect(status["state"] == "absent")
        #expect(status["path"]?.stringValue == missing)
        client.close()
    }

    @Test func timedOutWhenTheAccessoryAnswersTooLate() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("slow", ["--personality", "echo", "--delay-ms", "1500"])
        try s.startDaemon(accessories: [s.lineAccessory("slow")])
        let client = try s.connect()
        let clock = Stopwatch()
        let r = try client.call("transact", Params.transfer("slow", "too slow", timeoutMs: 150))
        #expect(r.code == 1003)
        #expect(r.error?.message.contains("150 ms") == true)
        // Answered at the timeout, long before the accessory's answer.
        #expect(clock.elapsed >= 0.14 && clock.elapsed < 1.4, "answered after \(clock.elapsed) s")
        let counters = try client.result("device.status", Params.device("slow"))["counters"]
        #expect(counters?["requests_timed_out"] == 1)
        client.close()
    }

    @Test func cancelledWhileQueued() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("slow", ["--personality", "echo", "--delay-ms", "300"])
        try s.startDaemon(accessories: [s.lineAccessory("slow")])
        let client = try s.connect()
        let executing = try client.send("transact", Params.transfer("slow", "executing"))
        let queued = try client.send("transact", Params.transfer("slow", "queued"), id: .string("the-queued-one"))
        #expect(try client.result("cancel", ["id": "the-queued-one"])["cancelled"] == true)
        let cancelled = try client.response(to: queued)
        #expect(cancelled.code == 1004)
        #expect(cancelled.result == nil)
        #expect(try client.response(to: executing).frameTexts == ["executing"])
        // Cancelling it again: it is gone.
        #expect(try client.result("cancel", ["id": "the-queued-one"])["cancelled"] == false)
        let counters = try client.result("device.status", Params.device("slow"))["counters"]
        #expect(counters?["requests_cancelled"] == 1)
        client.close()
    }

    @Test func deviceRemovedMidRequestThenBack() throws {
        let s = try Scenario()
        defer { s.finish() }
        // Answers once, then closes its pty master instead of the second answer; back 300 ms later.
        try s.simulator("flaky", ["--personality", "echo", "--hangup-after", "1", "--reappear-after-ms", "300"])
        try s.startDaemon(accessories: [s.lineAccessory("flaky", "reconnect: {initial_ms: 50, max_ms: 200}")])
        let client = try s.connect()
        _ = try client.result("subscribe", ["device": "flaky", "events": ["state"]])

        #expect(try client.call("transact", Params.transfer("flaky", "one")).frameTexts == ["one"])
        let removed = try client.call("transact", Params.transfer("flaky", "two"))
        #expect(removed.code == 1005)
        #expect(removed.error?.message.contains("removed") == true)
        let gone = try client.notification { $0.method == "device.state" }
        #expect(gone.params["device"] == "flaky")
        #expect(gone.params["state"] == "absent")
        #expect(gone.params["reason"]?.stringValue?.isEmpty == false)
        let back = try client.notification(seconds: 10) {
            $0.method == "device.state" && $0.params["state"] == "ready"
        }
        #expect(back.params["device"] == "flaky")
        #expect(try client.call("transact", Params.transfer("flaky", "three")).frameTexts == ["three"])
        let counters = try client.result("device.status", Params.device("flaky"))["counters"]
        #expect(counters?["removals"] == 1)
        #expect(counters?["opens"] == 2)
        client.close()
    }

    @Test func queueFullWhenPipeliningPastTheDepth() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("slow", ["--personality", "echo", "--delay-ms", "300"])
        try s.startDaemon(limits: [("queue_depth", 1)], accessories: [s.lineAccessory("slow")])
        let client = try s.connect()
        let ids = try (0..<4).map { try client.send("transact", Params.transfer("slow", "p\($0)")) }
        let responses = try ids.map { try client.response(to: $0) }
        #expect(responses[0].frameTexts == ["p0"])
        for r in responses.dropFirst() {
            #expect(r.code == 1007)
            #expect(r.error?.message.contains("try again") == true)
        }
        // Once the queue has room again, requests go through.
        #expect(try client.call("transact", Params.transfer("slow", "later")).frameTexts == ["later"])
        client.close()
    }
}
