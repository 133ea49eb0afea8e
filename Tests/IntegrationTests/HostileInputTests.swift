import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// Malformed JSON, wrong types, binary garbage, an over-long line and a client that never reads:
/// the right error or disconnect, and the daemon keeps serving the others.
///
/// Threading: each test runs on its own test thread and owns its scenario's processes.
@Suite struct HostileInputTests {
    @Test func malformedJSONWrongTypesAndBinaryGarbage() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(accessories: [s.lineAccessory("echo")])
        let client = try s.connect()
        let bystander = try s.connect()

        /// A request line with `params` given as raw JSON text.
        func request(_ id: Int, _ method: String, params: String) -> [UInt8] {
            Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#.utf8)
        }
        let lines: [(bytes: [UInt8], code: Int)] = [
            (Array(#"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"echo""#.utf8), -32700),
            (Array("{{{{".utf8), -32700),
            (request(2, "transact", params: #"{"device":"echo","data":"x"},"#), -32700),
            // Binary garbage: NULs, invalid UTF-8, control bytes.
            ([0x00, 0xFF, 0xFE, 0x7B, 0x80, 0xC3, 0x28, 0x01, 0x1B, 0x5B, 0x32, 0x4A, 0xF0, 0x9F], -32700),
            ([0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x31, 0x7D], -32700),  // {"<invalid UTF-8>":1}
            (Array(#"{"jsonrpc":"2.0","id":3,"method":42}"#.utf8), -32600),
            (Array(#"{"jsonrpc":"2.0","id":[3],"method":"devices.list"}"#.utf8), -32600),
            (request(4, "devices.list", params: #""all""#), -32600),
            (request(5, "transact", params: #"["echo","x"]"#), -32602),
            (request(6, "transact", params: #"{"device":"echo","data":7}"#), -32602),
            (request(7, "transact", params: #"{"device":"echo","data":"x","timeout_ms":1e999}"#), -32602),
            (request(8, "lock", params: #"{"device":"echo","lease_ms":true}"#), -32602),
            // Invalid UTF-8 inside `data`: not JSON text at all.
            (
                Array(#"{"jsonrpc":"2.0","id":9,"method":"write","params":{"device":"echo","data":""#.utf8)
                    + [0xC3, 0x28, 0xFF] + Array(#""}}"#.utf8), -32700
            ),
            // Huge numbers: an id past 64 bits, a timeout past any integer type, a huge exponent.
            (Array(#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"devices.list"}"#.utf8), -32600),
            (
                request(10, "transact", params: #"{"device":"echo","data":"x","timeout_ms":99999999999999999999}"#),
                -32602
            ),
            (request(11, "read", params: #"{"device":"echo","max_frames":-1e400}"#), -32602),
        ]
        for (bytes, code) in lines {
            try client.send(raw: bytes + [0x0A])
            let r = try client.nextResponse()
            #expect(r.code == code, "\(String(decoding: bytes, as: UTF8.self)) → \(r)")
            #expect(r.error?.message.isEmpty == false)
        }
        // The connection is still served, and so is everyone else.
        #expect(try client.call("transact", Params.transfer("echo", "after garbage")).frameTexts == ["after garbage"])
        #expect(try bystander.call("transact", Params.transfer("echo", "bystander")).frameTexts == ["bystander"])
        let status = try bystander.result("daemon.status")
        #expect((status["decode_errors"]?.intValue ?? 0) >= lines.count)
        client.close()
        bystander.close()
    }

    @Test func anOverlongLineDisconnectsOnlyThatClient() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(limits: [("max_line_bytes", 1024)], accessories: [s.lineAccessory("echo")])
        let bystander = try s.connect()
        _ = try bystander.result("subscribe", ["device": "echo", "events": ["state"]])

        // A complete line over the limit.
        let long = try s.connect()
        try long.send(
            raw: RPCClient.requestLine(
                id: .int(1),
                method: "transact",
                params: Params.transfer("echo", String(repeating: "x", count: 4000))
            )
        )
        let final = try long.nextResponse()
        #expect(final.code == -32600 && final.id == nil, "\(final)")
        #expect(long.waitUntilClosed(seconds: 10), "the client with a 4 kB line is still connected")
        // A line that never ends.
        let endless = try s.connect()
        try endless.send(raw: Array(repeating: 0x20, count: 3000))
        #expect(endless.waitUntilClosed(seconds: 10), "the client with an unterminated 3 kB line is still connected")
        // Just under the limit is fine.
        let fits = try s.connect()
        let payload = String(repeating: "y", count: 900)
        #expect(try fits.call("transact", Params.transfer("echo", payload)).frameTexts == [payload])

        #expect(try bystander.call("transact", Params.transfer("echo", "unaffected")).frameTexts == ["unaffected"])
        #expect(bystander.notifications.isEmpty)
        #expect(s.log.contains("longer than 1024 bytes"))
        long.close()
        endless.close()
        fits.close()
        bystander.close()
    }

    @Test func aClientThatNeverReadsIsDisconnectedAndOthersAreServed() throws {
        let s = try Scenario()
        defer { s.finish() }
        // A chatty accessory: a GPS fix (two sentences) every 20 ms; and an echo accessory whose
        // echoes of 16 kB lines (written below) go to subscribers as ~38 kB notifications.
        try s.simulator("gps", ["--personality", "nmea", "--unsolicited-ms", "20"])
        try s.simulator("echo")
        try s.startDaemon(
            limits: [("client_outbound_bytes", 65_536)],
            accessories: [
                s.lineAccessory("gps", framing: #"{type: line, delimiter: "\r\n"}"#),
                s.lineAccessory("echo", framing: #"{type: line, delimiter: "\n", max_frame_bytes: 32768}"#),
            ]
        )
        let sleeper = try s.connect()
        _ = try sleeper.result("subscribe", ["events": ["data"]])
        // From here on the sleeper reads nothing.
        let reader = try s.connect()
        reader.keepsNotifications = false
        _ = try reader.result("subscribe", ["events": ["data"]])

        // The reader feeds the echo accessory one 16 kB line at a time and reads each echo before
        // the next, so only the sleeper falls behind: past the kernel's socket buffer and the
        // daemon's 64 kB per-client limit, it is disconnected.
        let chunk = String(repeating: "z", count: 16_384)
        var clients = 2
        var fed = 0
        while clients != 1 {
            guard fed < 60 else { throw HarnessError("the sleeping client was not disconnected after \(fed) lines") }
            fed += 1
            #expect(try reader.result("write", Params.transfer("echo", chunk))["written"]?.intValue == chunk.utf8.count)
            _ = try reader.notification { $0.method == "device.data" && $0.params["device"] == "echo" }
            clients = try reader.result("daemon.status")["clients"]?.intValue ?? -1
        }
        #expect(sleeper.waitUntilClosed(seconds: 10), "the daemon closed the sleeper's connection")
        #expect(s.log.contains("disconnected"))
        // The reader is still served: answers, the GPS stream, the echo stream.
        #expect(try reader.call("transact", Params.transfer("echo", "still served")).frameTexts == ["still served"])
        _ = try reader.notification(seconds: 5) { $0.method == "device.data" && $0.params["device"] == "gps" }
        #expect(try reader.result("write", Params.transfer("echo", chunk))["written"]?.intValue == chunk.utf8.count)
        _ = try reader.notification { $0.method == "device.data" && $0.params["device"] == "echo" }
        sleeper.close()
        reader.close()
    }
}
