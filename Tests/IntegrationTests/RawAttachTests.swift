import ControlProtocol
import Glibc
import JSONCodec
import Testing

/// `attach`: a connection turned into a raw byte stream to one accessory, against the built
/// daemon and a simulated echo accessory.
///
/// Threading: each test runs on its own test thread and owns its scenario's processes.
@Suite struct RawAttachTests {
    @Test func attachCarriesRawBytesBothWaysAndHoldsOthersUntilTheClientLeaves() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(accessories: [s.lineAccessory("echo")])
        let raw = try s.connect()
        let other = try s.connect()

        // Bytes that follow the attach line in the same write are already raw.
        let attach = RPCClient.requestLine(id: .int(1), method: "attach", params: Params.device("echo"))
        try raw.send(raw: attach + Array("first\n".utf8))
        let response = try raw.response(to: .int(1))
        #expect(response.result?["attached"] == true)
        #expect(response.result?["device"] == "echo")
        // What comes back is the device's bytes as they are: no JSON, no framing removed.
        #expect(try raw.readTextLine() == "first")
        try raw.send(raw: Array("second\n".utf8))
        #expect(try raw.readTextLine() == "second")

        // Another client's request is refused at once without wait_ms, and waits with it.
        let refused = try other.call("transact", Params.transfer("echo", "no wait"))
        #expect(refused.code == 1002 && refused.error?.message.contains("locked by client") == true, "\(refused)")
        let waiting = try other.send("transact", Params.transfer("echo", "other's turn", waitMs: 30_000))
        #expect(try other.messages(during: 0.3).isEmpty)
        let status = try other.call("device.status", Params.device("echo"))
        #expect(status.result?["state"] == "ready")
        raw.close()
        #expect(try other.response(to: waiting).frameTexts == ["other's turn"])
        other.close()
    }

    @Test func theSessionsTokenLetsItsControlInDuringTheAttachAndNobodyElse() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(accessories: [s.lineAccessory("echo")])
        let raw = try s.connect()
        let side = try s.connect()
        let answer = try raw.result("attach", Params.device("echo"))
        guard case .string(let token)? = answer["session"] else {
            Issue.record("no session token in \(answer)")
            return
        }
        func control(_ session: String?, _ extra: JSONObject) throws -> Response {
            var params: JSONObject = ["device": "echo"]
            for member in extra { params.append(member.key, member.value) }
            if let session { params.append("session", .string(session)) }
            return try side.call("control", .object(params))
        }
        // With the token: run at once, inside the session. A pty takes a break; it has no modem
        // lines, which the answer says.
        let broke = try control(token, ["break_ms": 20])
        #expect(broke.result?["device"] == "echo", "\(broke)")
        let dtr = try control(token, ["dtr": false])
        #expect(dtr.code == 1008, "\(dtr)")
        #expect(dtr.error?.message.contains("modem lines are not available on") == true, "\(dtr)")
        #expect(dtr.error?.message.contains("not a serial port (ENOTTY)") == true, "\(dtr)")
        // Without it, another client: refused, naming the holder. A wrong token: refused.
        let plain = try control(nil, ["dtr": false])
        #expect(plain.code == 1002 && plain.error?.message.contains("locked by client") == true, "\(plain)")
        let wrong = try control(String(repeating: "0", count: 32), ["dtr": false])
        #expect(wrong.code == 1006, "\(wrong)")
        #expect(wrong.error?.message.contains("does not name an attach session of yours on echo") == true)
        // The session went on meanwhile.
        try raw.send(raw: Array("still raw\n".utf8))
        #expect(try raw.readTextLine() == "still raw")
        raw.close()
        side.close()
    }

    @Test func rawInputFarBeyondTheBackPressureLimitArrivesWholeAndInOrder() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(accessories: [s.lineAccessory("echo")])
        let raw = try s.connect()
        #expect(try raw.result("attach", Params.device("echo"))["attached"] == true)
        // 256 KiB in one go: four times the point where the daemon stops reading the client until
        // the device has taken what is in flight.
        let lines = (0..<2_048).map {
            String(repeating: "0", count: 5 - String($0).count) + String($0) + String(repeating: ".", count: 122)
        }
        // Sent whole before reading: the echoes wait in the daemon's outbound queue (1 MiB).
        try raw.send(raw: Array(lines.joined(separator: "\n").utf8) + [0x0A], seconds: 30)
        var echoed: [String] = []
        while echoed.count < lines.count, let line = try raw.readTextLine(seconds: 30) { echoed.append(line) }
        #expect(echoed.count == lines.count)
        #expect(echoed == lines, "first difference at line \(echoed.indices.first { echoed[$0] != lines[$0] } ?? -1)")
        raw.close()
    }

    @Test func aRequestQueuedBehindTheAttachWaitsForTheWholeSession() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("slow", ["--personality", "echo", "--delay-ms", "300"])
        try s.startDaemon(accessories: [s.lineAccessory("slow")])
        let busy = try s.connect()
        let raw = try s.connect()
        let queued = try s.connect()
        // The accessory is busy; the attach queues behind that request, and another client's
        // request behind the attach, before any lock exists.
        let first = try busy.send("transact", Params.transfer("slow", "first"))
        let attach = try raw.send("attach", Params.device("slow"))
        // Both are in the queue (the first executing) before the third request comes.
        #expect(try waitForStatus(queued, "slow") { $0["queue_depth"]?.int64Value == 2 })
        let waiting = try queued.send("transact", Params.transfer("slow", "queued"))
        #expect(try busy.response(to: first).frameTexts == ["first"])
        #expect(try raw.response(to: attach).result?["attached"] == true)
        // The queued request does not run during the session: the device answers only the raw client.
        try raw.send(raw: Array("mine\n".utf8))
        #expect(try raw.readTextLine() == "mine")
        #expect(try queued.messages(during: 0.5).isEmpty)
        raw.close()
        #expect(try queued.response(to: waiting).frameTexts == ["queued"])
        busy.close()
        queued.close()
    }

    @Test func attachEndsTheConnectionsSubscriptions() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.simulator("gps", ["--personality", "nmea", "--unsolicited-ms", "20"])
        try s.startDaemon(accessories: [s.lineAccessory("echo"), s.lineAccessory("gps")])
        let raw = try s.connect()
        _ = try raw.result("subscribe", ["events": ["data", "state"]])
        _ = try raw.notification { $0.method == "device.data" }
        #expect(try raw.result("attach", Params.device("echo"))["attached"] == true)
        // From here on the stream carries the echo's bytes only: none of the GPS's sentences,
        // which come every 20 ms, as notification lines.
        try raw.send(raw: Array("only mine\n".utf8))
        var lines: [String] = []
        let quiet = Deadline(seconds: 0.5)
        while !quiet.hasPassed, let line = try? raw.readTextLine(seconds: max(0.01, quiet.remaining)) {
            lines.append(line)
        }
        #expect(lines == ["only mine"])
        raw.close()
    }

    @Test func aFailedAttachLeavesTheConnectionReadingRequests() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(accessories: [s.lineAccessory("echo")])
        let client = try s.connect()
        // The request after the failed attach, in the same write, is read as a request.
        let attach = RPCClient.requestLine(id: .int(1), method: "attach", params: Params.device("ghost"))
        let list = RPCClient.requestLine(id: .int(2), method: "devices.list", params: nil)
        try client.send(raw: attach + list)
        #expect(try client.response(to: .int(1)).code == 1001)
        #expect(try client.response(to: .int(2)).result?["devices"]?.arrayValue?.count == 1)
        #expect(try client.call("transact", Params.transfer("echo", "still JSON")).frameTexts == ["still JSON"])
        client.close()
    }

    @Test func anAttachRefusedAfterWaitingInTheQueueLeavesTheConnectionReadingRequests() throws {
        let s = try Scenario()
        defer { s.finish() }
        let missing = s.directory.file("not-plugged-in")
        try s.startDaemon(accessories: [s.lineAccessory("ghost", path: missing)], ready: [])
        let client = try s.connect()
        // The attach waits for the absent accessory inside its queue and is refused when the wait
        // expires (1003): the refusal comes from the operation, not from the request's admission.
        let attach = RPCClient.requestLine(
            id: .int(1),
            method: "attach",
            params: ["device": "ghost", "wait_ms": 150]
        )
        let list = RPCClient.requestLine(id: .int(2), method: "devices.list", params: nil)
        try client.send(raw: attach + list)
        #expect(try client.response(to: .int(1)).code == 1003)
        #expect(try client.response(to: .int(2)).result?["devices"]?.arrayValue?.count == 1)
        #expect(try client.call("device.status", Params.device("ghost")).result?["state"] == "absent")
        client.close()
    }

    @Test func aRawClientIsDisconnectedWhenItsDeviceGoesAway() throws {
        let s = try Scenario()
        defer { s.finish() }
        // Answers once, then closes its pty master instead of the second answer.
        try s.simulator("flaky", ["--personality", "echo", "--hangup-after", "1"])
        try s.startDaemon(accessories: [s.lineAccessory("flaky")])
        let raw = try s.connect()
        #expect(try raw.result("attach", Params.device("flaky"))["attached"] == true)
        try raw.send(raw: Array("one\n".utf8))
        #expect(try raw.readTextLine() == "one")
        try raw.send(raw: Array("two\n".utf8))
        #expect(raw.waitUntilClosed(seconds: 10), "the raw client stayed connected to a removed device")
        let other = try s.connect()
        #expect(try other.result("devices.list")["devices"]?.arrayValue?.first?["state"] != "ready")
        other.close()
    }

    @Test func accessoryctlAttachPipesInputToTheDeviceAndItsOutputBack() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(accessories: [s.lineAccessory("echo")])
        let ctl = try BuiltProducts.executable("accessoryctl")
        let script = "printf 'one\\ntwo\\n' | '\(ctl)' --socket '\(s.socketPath)' attach echo --linger 300"
        let run = try ChildRun(
            label: "accessoryctl attach",
            executable: "/bin/sh",
            arguments: ["-c", script],
            stdoutPath: s.directory.file("attach.out"),
            stderrPath: s.directory.file("attach.err")
        )
        defer { run.kill() }
        #expect(run.wait(seconds: 10) == .exited(0), "stderr: \(run.stderr)")
        #expect(run.stdout == "one\ntwo\n")
        // The accessory is free again: JSON clients are served.
        let client = try s.connect()
        #expect(try client.call("transact", Params.transfer("echo", "after")).frameTexts == ["after"])
        client.close()
    }

    @Test func accessoryctlAttachSendsALargeFileGivenAsStandardInput() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(accessories: [s.lineAccessory("echo")])
        // 300 KiB: a regular file (epoll cannot watch it) larger than what accessoryctl buffers.
        let text = (0..<2_400).map { "line \($0) " + String(repeating: "x", count: 120) + "\n" }.joined()
        let input = try s.directory.write("input.txt", text)
        let ctl = try BuiltProducts.executable("accessoryctl")
        let run = try ChildRun(
            label: "accessoryctl attach < file",
            executable: "/bin/sh",
            arguments: ["-c", "'\(ctl)' --socket '\(s.socketPath)' attach echo --linger 500 < '\(input)'"],
            stdoutPath: s.directory.file("attach-file.out"),
            stderrPath: s.directory.file("attach-file.err")
        )
        defer { run.kill() }
        #expect(run.wait(seconds: 30) == .exited(0), "stderr: \(run.stderr)")
        #expect(run.stdout == text)
    }
}
