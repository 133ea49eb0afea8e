import AccessoryVersion
import Glibc
import JSONCodec
import SystemCalls
import Testing

@testable import ControlProtocol

/// Every method of the control protocol against the built daemon and simulated accessories.
///
/// Threading: each test runs on its own test thread and owns its scenario's processes.
@Suite struct MethodTests {
    @Test func listStatusTransactWriteAndDaemonStatus() throws {
        let s = try Scenario()
        defer { s.finish() }
        let echoPath = try s.simulator("echo")
        try s.startDaemon(accessories: [s.lineAccessory("echo")])
        let client = try s.connect()

        let list = try client.result("devices.list")
        let devices = try #require(list["devices"]?.arrayValue)
        #expect(devices.count == 1)
        #expect(devices.first?["name"] == "echo")
        #expect(devices.first?["state"] == "ready")
        #expect(devices.first?["transport"] == "serial")
        #expect(devices.first?["path"]?.stringValue == echoPath)
        #expect(devices.first?["queue_depth"] == 0)

        let reply = try client.call("transact", Params.transfer("echo", "hello, accessory"))
        #expect(reply.frameTexts == ["hello, accessory"])
        #expect(reply.result?["elapsed_ms"]?.intValue != nil)

        // Bytes that are not UTF-8 travel as data_base64 both ways; the result has no "data".
        let binary: [UInt8] = [0x01, 0xFF, 0x80, 0x7F, 0xC3]
        let binaryReply = try client.call(
            "transact",
            ["device": "echo", "data_base64": .string(Base64.encodedString(binary))]
        )
        let frame = try #require(binaryReply.result?["frames"]?.arrayValue?.first)
        #expect(frame["data_base64"]?.stringValue == Base64.encodedString(binary))
        #expect(frame["data"] == nil)

        let written = try client.call("write", Params.transfer("echo", "fire and forget"))
        #expect(written.result?["written"] == 15)

        let status = try client.result("device.status", Params.device("echo"))
        #expect(status["name"] == "echo")
        #expect(status["state"] == "ready")
        #expect(status["settings"]?["framing"] == "line")
        let counters = try #require(status["counters"])
        #expect(counters["requests_ok"] == 3)
        #expect(counters["frames_out"] == 3)
        #expect((counters["bytes_out"]?.intValue ?? 0) >= 36)

        let daemon = try client.result("daemon.status")
        #expect(daemon["version"]?.stringValue == AccessoryVersion.number)
        #expect(daemon["clients"] == 1)
        #expect(daemon["accessories"] == 1)
        #expect(daemon["accessories_ready"] == 1)
        #expect(daemon["uptime_s"]?.intValue != nil)
        #expect(daemon["pid"]?.intValue == Int(s.daemon!.pid))
        client.close()
    }

    @Test func readSubscribeUnsubscribeAndDataNotifications() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.simulator("gps", ["--personality", "nmea", "--unsolicited-ms", "50"])
        try s.startDaemon(accessories: [
            s.lineAccessory("echo"),
            s.lineAccessory("gps", framing: #"{type: line, delimiter: "\r\n"}"#),
        ])
        let client = try s.connect()

        // read collects frames nobody else claimed: the GPS emits a fix (two sentences) every 50 ms.
        let read = try client.call("read", ["device": "gps", "max_frames": 3, "timeout_ms": 5000])
        let sentences = try #require(read.frameTexts)
        #expect(sentences.count == 3)
        #expect(sentences.allSatisfy { $0.hasPrefix("$GP") })

        // device.data: frames no request claimed. The echo of a `write` is one.
        let subscribed = try client.result("subscribe", ["device": "echo", "events": ["data"]])
        #expect(subscribed["subscribed"] == true)
        #expect(try client.result("write", Params.transfer("echo", "unclaimed echo"))["written"] == 14)
        let echoData = try client.notification { $0.method == "device.data" && $0.params["device"] == "echo" }
        #expect(echoData.params["data"] == "unclaimed echo")
        #expect(echoData.params["data_base64"]?.stringValue == Base64.encodedString(Array("unclaimed echo".utf8)))

        // All accessories: the GPS stream arrives too.
        _ = try client.result("subscribe", ["events": ["data"]])
        let fix = try client.notification { $0.method == "device.data" && $0.params["device"] == "gps" }
        #expect(fix.params["data"]?.stringValue?.hasPrefix("$GP") == true)

        // After unsubscribe's answer, no more data notifications (earlier ones precede the answer).
        let unsubscribed = try client.result("unsubscribe")
        #expect(unsubscribed["subscribed"] == false)
        let after = try client.messages(during: 0.4)
        #expect(after.isEmpty, "messages after unsubscribe: \(after)")
        client.close()
    }

    @Test func lockHoldsOthersUntilUnlockAndALeaseExpires() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(accessories: [s.lineAccessory("echo")])
        let holder = try s.connect()
        let other = try s.connect()

        let locked = try holder.result("lock", ["device": "echo", "timeout_ms": 1000])
        #expect(locked["locked"] == true)
        // Without wait_ms another client's request is refused at once, naming the holder.
        let refused = try other.call("transact", Params.transfer("echo", "no wait"))
        #expect(refused.code == 1002 && refused.error?.data?["holder"]?.int64Value != nil, "\(refused)")
        let waiting = try other.send("transact", Params.transfer("echo", "other's turn", waitMs: 30_000))
        // The holder goes first; the other client's request waits, unanswered.
        #expect(try holder.call("transact", Params.transfer("echo", "holder")).frameTexts == ["holder"])
        #expect(try other.messages(during: 0.3).isEmpty)
        // Nobody but the holder can release it.
        #expect(try other.call("unlock", Params.device("echo")).code == 1006)
        #expect(try holder.result("unlock", Params.device("echo"))["unlocked"] == true)
        #expect(try other.response(to: waiting).frameTexts == ["other's turn"])
        #expect(try holder.call("unlock", Params.device("echo")).code == 1006)

        // A lease ends by itself.
        #expect(try holder.result("lock", ["device": "echo", "lease_ms": 300])["lease_ms"] == 300)
        let clock = Stopwatch()
        let afterLease = try other.call(
            "transact",
            Params.transfer("echo", "after the lease", waitMs: 30_000),
            seconds: 10
        )
        #expect(afterLease.frameTexts == ["after the lease"])
        #expect(clock.elapsed >= 0.2, "answered \(clock.elapsed) s after a 300 ms lease began")
        holder.close()
        other.close()
    }

    @Test func cancelAnswersForKnownAndUnknownIDs() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("slow", ["--personality", "echo", "--delay-ms", "300"])
        try s.startDaemon(accessories: [s.lineAccessory("slow")])
        let client = try s.connect()
        #expect(try client.result("cancel", ["id": 4242])["cancelled"] == false)
        #expect(try client.result("cancel", ["id": "no-such-request"])["cancelled"] == false)
        let first = try client.send("transact", Params.transfer("slow", "first"))
        let second = try client.send("transact", Params.transfer("slow", "second"))
        #expect(try client.result("cancel", ["id": second.json])["cancelled"] == true)
        #expect(try client.response(to: second).code == 1004)
        #expect(try client.response(to: first).frameTexts == ["first"])
        // The queue goes on normally.
        #expect(try client.call("transact", Params.transfer("slow", "third")).frameTexts == ["third"])
        client.close()
    }
}
