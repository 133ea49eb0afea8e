import AccessoryConfig
import AccessorySimulator
import AccessoryTestSupport
import JSONCodec
import SystemCalls
import Testing
import TrafficTrace

@testable import AccessoryCore
@testable import ControlProtocol

/// Traffic: the trace file and `device.traffic`, against an in-process echo accessory (what it
/// receives, it sends back: so the bytes the device saw and sent are the test's own frames).
@Suite("traffic: trace files and device.traffic")
struct TrafficTests {
    static func echo(_ extra: String = "") -> (sims: [String: SimulatorConfiguration], yaml: String) {
        let yaml = """
            accessories:
              - name: echo
                path: {sim:echo}
                framing: {type: line, delimiter: "\\n"}
            \(extra)
            """
        return (["echo": SimulatorConfiguration(name: "echo", personality: .echo, terminator: .lf)], yaml)
    }

    static func records(_ lines: [[UInt8]]) -> [TrafficRecord] {
        lines.flatMap { $0.split(separator: UInt8(ascii: "\n")) }.compactMap { line in
            guard case .notification(let n)? = try? ServerMessage.decode(line),
                case .traffic(let record)? = try? n.event()
            else { return nil }
            return record
        }
    }

    @Test(
        "a scripted session: the jsonl trace and device.traffic carry exactly the bytes sent and echoed, with who sent them"
    )
    func scriptedSessionByteForByte() throws {
        let (sims, base) = Self.echo()
        let h = try CoreHarness(sims: sims, yaml: base)
        let file = h.dir + "/echo.trace"
        _ = try h.reload(base + "    trace: {file: \(file), format: jsonl}\n")
        #expect(h.waitReady("echo"))
        let watcher = RecordingOrigin(clientID: 1)
        h.request(
            #"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"device":"echo","events":["traffic"]}}"#,
            from: watcher
        )
        #expect(watcher.response(1)?.value?["events"] == .array([.string("traffic")]))
        let client = RecordingOrigin(clientID: 7)
        let before = WallClock.microsecondsSinceEpoch()
        h.request(
            #"{"jsonrpc":"2.0","id":10,"method":"transact","params":{"device":"echo","data":"hello"}}"#,
            from: client
        )
        #expect(frameTexts(client.response(10)?.value) == ["hello"])
        h.request(
            #"{"jsonrpc":"2.0","id":11,"method":"transact","params":{"device":"echo","data_base64":"AAH/f1w="}}"#,
            from: client
        )
        #expect(client.response(11)?.value?["frames"]?.arrayValue?.first?["data_base64"] == .string("AAH/f1w="))
        h.request(
            #"{"jsonrpc":"2.0","id":12,"method":"transact","params":{"device":"echo","data":"wörld\t!"}}"#,
            from: client
        )
        #expect(frameTexts(client.response(12)?.value) == ["wörld\t!"])
        let after = WallClock.microsecondsSinceEpoch()
        // Everything was handed out once the last reply is in; the file is complete once closed.
        #expect(Wait.until { Self.records(watcher.notifications).filter { $0.direction == .rx }.count >= 3 })
        let r = h.registry
        _ = Wait.onLoop(h.loop) { r.accessory(named: "echo")?.stopTraceFile() }
        // The writer writes what is queued and closes the file on its own thread.
        #expect(TraceWriter.awaitFinishing(within: .seconds(10)))

        let sent: [[UInt8]] = [Array("hello\n".utf8), [0x00, 0x01, 0xFF, 0x7F, 0x5C, 0x0A], Array("wörld\t!\n".utf8)]
        let traced = try FileIO.readFile(file).split(separator: UInt8(ascii: "\n")).map {
            try TrafficRecord(json: JSONParser.parse($0))
        }
        let notified = Self.records(watcher.notifications)
        #expect(traced == notified, "the file and the notifications carry the same records")
        let tx = traced.filter { $0.direction == .tx }
        let rx = traced.filter { $0.direction == .rx }
        #expect(tx.map(\.bytes) == sent, "one tx record a frame, the bytes exactly as framed")
        #expect(tx.map(\.request) == [.int(10), .int(11), .int(12)])
        #expect(tx.allSatisfy { $0.client == 7 })
        #expect(rx.flatMap(\.bytes) == sent.flatMap { $0 }, "the echo, byte for byte (reads may split it)")
        // Each echo was read while its transact waited: the record names it.
        #expect(rx.allSatisfy { $0.client == 7 && [.int(10), .int(11), .int(12)].contains($0.request) })
        #expect(rx.last?.request == .int(12))
        #expect(traced.allSatisfy { $0.device == "echo" })
        let times = traced.map(\.timestampMicroseconds)
        #expect(times == times.sorted() && times.first! >= before && times.last! <= after)
    }

    @Test(
        "a client not allowed on the accessory is refused its traffic, named or not; subscribe without events gives none"
    )
    func accessRulesAndDefaults() throws {
        let (sims, yaml) = Self.echo("    access: {users: [0]}")
        let h = try CoreHarness(sims: sims, yaml: yaml)
        #expect(h.waitReady("echo"))
        let nobody = RecordingOrigin(clientID: 2, uid: 65_534, gid: 65_534)
        h.request(
            #"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"device":"echo","events":["traffic"]}}"#,
            from: nobody
        )
        // Refused exactly as an accessory that does not exist (a hidden one cannot be probed).
        #expect(nobody.response(1)?.errorCode == .unknownDevice)
        // Subscribed to everything it may see: that is not this accessory.
        h.request(#"{"jsonrpc":"2.0","id":2,"method":"subscribe","params":{"events":["traffic"]}}"#, from: nobody)
        #expect(nobody.response(2)?.value?["subscribed"] == .bool(true))
        let plain = RecordingOrigin(clientID: 3)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"device":"echo"}}"#, from: plain)
        #expect(plain.response(1)?.value?["events"] == .array([.string("data"), .string("state")]))
        let r = h.registry
        #expect(Wait.onLoop(h.loop) { r.accessory(named: "echo")?.tap == nil } == true, "nobody may trace: no tap")
        let root = RecordingOrigin(clientID: 4)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"events":["traffic"]}}"#, from: root)
        #expect(root.response(1)?.value?["subscribed"] == .bool(true))
        h.request(
            #"{"jsonrpc":"2.0","id":2,"method":"transact","params":{"device":"echo","data":"secret"}}"#,
            from: root
        )
        #expect(frameTexts(root.response(2)?.value) == ["secret"])
        #expect(Wait.until { Self.records(root.notifications).count == 2 })
        #expect(Self.records(nobody.notifications).isEmpty)
        #expect(Self.records(plain.notifications).isEmpty)
        // The last traffic subscriber leaves: the byte paths are back to one nil test.
        h.request(#"{"jsonrpc":"2.0","id":3,"method":"unsubscribe","params":{"events":["traffic"]}}"#, from: root)
        #expect(root.response(3)?.value?["subscribed"] == .bool(false))
        #expect(Wait.onLoop(h.loop) { r.accessory(named: "echo")?.tap == nil } == true)
    }

    @Test("a trace file that cannot be opened is logged and the accessory serves without it")
    func unopenableTraceFile() throws {
        let (sims, base) = Self.echo()
        let h = try CoreHarness(sims: sims, yaml: base)
        try FileIO.symlink(target: "/etc/passwd", at: h.dir + "/link.trace")
        defer { try? FileIO.unlink(h.dir + "/link.trace") }
        let yaml = base + "    trace: {file: \(h.dir)/link.trace}\n"
        _ = try h.reload(yaml)
        #expect(h.waitReady("echo"))
        let client = RecordingOrigin(clientID: 1)
        h.request(
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"echo","data":"still here"}}"#,
            from: client
        )
        #expect(frameTexts(client.response(1)?.value) == ["still here"])
        h.request(#"{"jsonrpc":"2.0","id":2,"method":"device.status","params":{"device":"echo"}}"#, from: client)
        let status = client.response(2)?.value
        #expect(status?["trace"]?["active"] == .bool(false))
        #expect(status?["last_error"]?.stringValue?.contains("symbolic link") == true)
    }

    static func rxBytes(_ records: [TrafficRecord], request: RequestID?) -> String {
        String(
            decoding: records.filter { $0.direction == .rx && $0.request == request }.flatMap(\.bytes),
            as: UTF8.self
        )
    }

    @Test(
        "one read carrying an unsolicited frame and an answer is traced frame by frame: the unsolicited one names no request"
    )
    func unsolicitedFrameInTheAnswersRead() throws {
        let (sims, yaml) = Self.echo("    unsolicited: ['^RING$']")
        let h = try CoreHarness(sims: sims, yaml: yaml)
        #expect(h.waitReady("echo"))
        let watcher = RecordingOrigin(clientID: 1)
        h.request(
            #"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"device":"echo","events":["traffic"]}}"#,
            from: watcher
        )
        #expect(watcher.response(1)?.value?["subscribed"] == .bool(true))
        let client = RecordingOrigin(clientID: 7)
        // The echo sends both lines back in one write: one read, two frames.
        h.request(
            #"{"jsonrpc":"2.0","id":10,"method":"transact","params":{"device":"echo","data":"RING\nhello"}}"#,
            from: client
        )
        #expect(frameTexts(client.response(10)?.value) == ["hello"])
        #expect(
            Wait.until {
                Self.records(watcher.notifications).filter { $0.direction == .rx }.flatMap(\.bytes).count >= 11
            }
        )
        let records = Self.records(watcher.notifications)
        #expect(Self.rxBytes(records, request: nil) == "RING\n")
        #expect(Self.rxBytes(records, request: .int(10)) == "hello\n")
        #expect(records.filter { $0.direction == .rx }.allSatisfy { $0.request == nil || $0.client == 7 })
    }

    @Test("the simulated modem's RING while a transact waits for its late answer is traced as unsolicited")
    func modemRingDuringARequest() throws {
        var sim = SimulatorConfiguration(name: "modem", personality: .atModem, terminator: .crlf)
        sim.unsolicitedInterval = .milliseconds(40)
        sim.faults = FaultSwitches(lateBy: .milliseconds(400))
        let yaml = """
            accessories:
              - name: modem
                path: {sim:modem}
                framing: {type: line, delimiter: "\\r\\n", terminator: "\\r\\n"}
                response: {until: '^(OK|ERROR)$', timeout_ms: 3000}
                unsolicited: ['^RING$', '^\\+CMTI: .*']
            """
        let h = try CoreHarness(sims: ["modem": sim], yaml: yaml)
        #expect(h.waitReady("modem"))
        let watcher = RecordingOrigin(clientID: 1)
        h.request(
            #"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"device":"modem","events":["traffic"]}}"#,
            from: watcher
        )
        #expect(watcher.response(1)?.value?["subscribed"] == .bool(true))
        let client = RecordingOrigin(clientID: 7)
        h.request(
            #"{"jsonrpc":"2.0","id":2,"method":"transact","params":{"device":"modem","data":"AT"}}"#,
            from: client
        )
        #expect(frameTexts(client.response(2)?.value).last == "OK")
        #expect(Wait.until { Self.rxBytes(Self.records(watcher.notifications), request: .int(2)).contains("OK") })
        let records = Self.records(watcher.notifications)
        let answered = Self.rxBytes(records, request: .int(2))
        #expect(!answered.contains("RING") && !answered.contains("+CMTI"), "answered: \(answered.debugDescription)")
        // The test means something only if unsolicited lines came while the request waited.
        let sentAt = records.first { $0.direction == .tx }?.timestampMicroseconds ?? .max
        let answeredAt = records.last { $0.direction == .rx && $0.request == .int(2) }?.timestampMicroseconds ?? .min
        let meanwhile = records.filter {
            $0.direction == .rx && $0.request == nil && (sentAt..<answeredAt).contains($0.timestampMicroseconds)
        }
        #expect(meanwhile.contains { String(decoding: $0.bytes, as: UTF8.self).contains("RING") })
    }
}
