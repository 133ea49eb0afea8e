import AccessoryTestSupport
import Glibc
import JSONCodec
import SystemCalls
import Testing

@testable import ControlProtocol

/// Traffic traces against the built daemon: a `text` trace file of a session with a raw
/// `attach` in it, and `accessoryctl trace`.
///
/// Threading: each test runs on its own test thread and owns its scenario's processes.
@Suite struct TraceTests {
    /// One line of a `text` trace: `<time>Z <rx|tx>[ client N request ID]: <escaped bytes>`.
    struct TextRecord {
        var direction: String
        var client: String?
        var request: String?
        var bytes: [UInt8]

        init?(_ line: Substring) {
            guard let colon = line.firstRange(of: ": ") else { return nil }
            let head = line[..<colon.lowerBound].split(separator: " ")
            guard head.count == 2 || head.count == 6, head[0].hasSuffix("Z") else { return nil }
            direction = String(head[1])
            if head.count == 6 {
                guard head[2] == "client", head[4] == "request" else { return nil }
                client = String(head[3])
                request = String(head[5])
            }
            guard let bytes = TextRecord.unescape(line[colon.upperBound...]) else { return nil }
            self.bytes = bytes
        }

        /// The inverse of the trace's escaping: `\r \n \t \0 \\ \xNN`.
        static func unescape(_ text: Substring) -> [UInt8]? {
            var out: [UInt8] = []
            var iterator = Array(text.utf8).makeIterator()
            while let byte = iterator.next() {
                guard byte == 0x5C else {
                    out.append(byte)
                    continue
                }
                switch iterator.next() {
                case UInt8(ascii: "r")?: out.append(0x0D)
                case UInt8(ascii: "n")?: out.append(0x0A)
                case UInt8(ascii: "t")?: out.append(0x09)
                case UInt8(ascii: "0")?: out.append(0x00)
                case 0x5C?: out.append(0x5C)
                case UInt8(ascii: "x")?:
                    guard let high = iterator.next(), let low = iterator.next(),
                        let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
                    else { return nil }
                    out.append(value)
                default: return nil
                }
            }
            return out
        }
    }

    @Test func aTextTraceHoldsEveryByteOfASessionWithTheRequestsThatSentThem() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        let file = s.directory.file("echo.trace")
        try s.startDaemon(accessories: [s.lineAccessory("echo", "trace: {file: \(file), format: text}")])
        // A raw session: its bytes are the attach request's.
        let raw = try s.connect()
        let attach = try raw.send("attach", Params.device("echo"), id: .string("raw-1"))
        #expect(try raw.response(to: attach).result?["attached"] == true)
        try raw.send(raw: Array("raw\u{1} one\n".utf8))
        #expect(try raw.readTextLine() == "raw\u{1} one")
        raw.close()
        let client = try s.connect()
        let id = try client.send("transact", Params.transfer("echo", "after \\ it"))
        #expect(try client.response(to: id).frameTexts == ["after \\ it"])
        client.close()
        // The file is complete once the daemon has stopped (the writer flushes and closes it).
        _ = s.stopDaemon()
        let lines = TemporaryDirectory.contents(of: file).split(separator: "\n")
        let records = lines.compactMap(TextRecord.init)
        #expect(records.count == lines.count, "every line parses: \(lines)")
        let tx = records.filter { $0.direction == "tx" }
        let sent = [Array("raw\u{1} one\n".utf8), Array("after \\ it\n".utf8)]
        #expect(tx.flatMap(\.bytes) == sent.flatMap { $0 })
        #expect(tx.first?.request == "\"raw-1\"" && tx.last?.request == "\(id)")
        #expect(Set(tx.map(\.client)).count == 2, "two connections, two client ids")
        let rx = records.filter { $0.direction == "rx" }
        #expect(rx.flatMap(\.bytes) == sent.flatMap { $0 })
        #expect(rx.allSatisfy { $0.client == nil })
    }

    @Test func accessoryctlTracePrintsEachRecordLikeTio() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(accessories: [s.lineAccessory("echo")])
        let ctl = try BuiltProducts.executable("accessoryctl")
        func start(_ label: String, _ options: [String]) throws -> ChildRun {
            try ChildRun(
                label: "accessoryctl trace \(label)",
                executable: ctl,
                arguments: ["--socket", s.socketPath, "trace", "echo"] + options,
                stdoutPath: s.directory.file("trace-\(label).out"),
                stderrPath: s.directory.file("trace-\(label).err")
            )
        }
        let plain = try start("plain", [])
        defer { plain.kill() }
        let hex = try start("hex", ["--hex", "--timestamps"])
        defer { hex.kill() }
        let client = try s.connect()
        // Until both print: then both are subscribed (bounded).
        let deadline = Deadline(seconds: 15)
        while plain.stdout.isEmpty || hex.stdout.isEmpty, !deadline.hasPassed {
            _ = try client.call("transact", Params.transfer("echo", "sync"))
            usleep(50_000)
        }
        #expect(!plain.stdout.isEmpty && !hex.stdout.isEmpty, "\(plain.stderr) \(hex.stderr)")
        let payload = Base64.encodedString([0x68, 0x69, 0x00, 0xC3, 0xA9])
        let id = try client.send("transact", ["device": "echo", "data_base64": .string(payload)])
        _ = try client.response(to: id)
        let marker = "rx: hi\\0\\xc3\\xa9\\n"
        #expect(Wait.until(seconds: 10) { plain.stdout.contains(marker) })
        #expect(Wait.until(seconds: 10) { hex.stdout.contains("|hi....|") })
        #expect(plain.terminate() == .exited(0))
        #expect(hex.terminate() == .exited(0))
        let lines = plain.stdout.split(separator: "\n").map(String.init)
        let txLine = try #require(lines.first { $0.hasSuffix("request \(id)): hi\\0\\xc3\\xa9\\n") })
        #expect(txLine.hasPrefix("tx (client "))
        #expect(lines.contains(marker))
        let hexLines = hex.stdout.split(separator: "\n").map(String.init)
        let head = try #require(hexLines.firstIndex { $0.hasSuffix("request \(id)): 6 bytes") })
        // `[2026-11-25 13:16:35.123] tx (client …`: the local date and time to the millisecond.
        let stamp = hexLines[head].prefix(25)
        #expect(stamp.first == "[" && stamp.last == "]" && stamp.count == 25)
        #expect(hexLines[head + 1] == "  00000000  68 69 00 c3 a9 0a                                 |hi....|")
        client.close()
    }
}
