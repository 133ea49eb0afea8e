import Glibc
import SystemCalls
import Testing

@testable import TrafficTrace

/// The recording format (docs/replay.md): written and read back equal, binary-safe; hostile
/// files are clean errors naming the line; a 1 GB line is refused after 1 MiB.
@Suite("recordings: the JSON Lines format")
struct RecordingFormatTests {
    static let sample = Recording(
        device: "modem",
        startedMicroseconds: 1_700_000_000_000_000,
        settings: ["framing": "{\"kind\":\"line\"}"],
        entries: [
            RecordingEntry(timeMicroseconds: 0, kind: .rx(replyTo: nil), bytes: Array("RING\r\n".utf8)),
            RecordingEntry(timeMicroseconds: 1000, kind: .tx(client: 3, request: "7"), bytes: Array("AT\r".utf8)),
            RecordingEntry(timeMicroseconds: 1500, kind: .rx(replyTo: 1), bytes: [0x00, 0xFF, 0x0D, 0x0A, 0xC0]),
            RecordingEntry(timeMicroseconds: 1600, kind: .event("unplug")),
            RecordingEntry(timeMicroseconds: 1700, kind: .dropped(4096)),
            RecordingEntry(timeMicroseconds: 1800, kind: .tx(client: nil, request: "\"abc\""), bytes: []),
            RecordingEntry(timeMicroseconds: 1900, kind: .control(.dtr(false), client: 3)),
            RecordingEntry(timeMicroseconds: 1901, kind: .control(.rts(true), client: nil)),
            RecordingEntry(timeMicroseconds: 1902, kind: .control(.breakSent(milliseconds: 250), client: 3)),
        ]
    )

    static func decode(
        _ text: String,
        limits: RecordingDecoder.Limits = RecordingDecoder.Limits()
    ) throws(RecordingError) -> Recording {
        var decoder = RecordingDecoder(limits: limits)
        var pending: [UInt8] = []
        try RecordingFile.decode(Array(text.utf8), pending: &pending, with: &decoder)
        guard pending.isEmpty else { throw RecordingError(line: decoder.currentLine + 1, "truncated") }
        return try decoder.finish()
    }

    static func error(_ text: String) -> RecordingError? {
        do {
            _ = try decode(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func aRecordingReadsBackEqualBinaryBytesIncluded() throws {
        let text = String(decoding: Self.sample.encoded(), as: UTF8.self)
        var read = try Self.decode(text)
        for index in read.entries.indices { read.entries[index].line = 0 }
        #expect(read == Self.sample)
        #expect(
            text.split(separator: "\n").first?.hasPrefix("{\"format\":\"accessoryd-recording\",\"version\":2") == true
        )
        #expect(text.contains("\"reply_to\":3"))
        #expect(text.contains(#"{"t_us":1900,"control":{"dtr":false},"client":3}"#))
    }

    @Test func aVersion1RecordingIsStillRead() throws {
        let text =
            #"{"format":"accessoryd-recording","version":1,"device":"m"}"# + "\n"
            + #"{"t_us":0,"dir":"tx","data_base64":"QVQN"}"# + "\n"
        #expect(try Self.decode(text).entries.count == 1)
    }

    @Test func aJSONLTraceFilesControlRecordsAreControlEntries() throws {
        let trace = """
            {"device":"m","timestamp":"x","timestamp_us":100,"direction":"control","client":2,"request":1,"control":{"rts":false}}
            {"device":"m","timestamp":"x","timestamp_us":150,"direction":"control","client":2,"request":1,"control":{"break_ms":20}}

            """
        let read = try Self.decode(trace)
        #expect(
            read.entries.map(\.kind) == [
                .control(.rts(false), client: 2), .control(.breakSent(milliseconds: 20), client: 2),
            ]
        )
        let bad = #"{"device":"m","timestamp":"x","timestamp_us":1,"direction":"control","control":{"dtr":1}}"# + "\n"
        #expect(Self.error(bad)?.message.contains("\"control\" must be") == true)
    }

    @Test func aJSONLTraceFileIsARecordingWithRepliesByOrder() throws {
        let trace = """
            {"device":"m","timestamp":"x","timestamp_us":5000000,"direction":"rx","data_base64":"UklORw0K"}
            {"device":"m","timestamp":"x","timestamp_us":5001000,"direction":"tx","client":2,"request":1,"data_base64":"QVQN"}
            {"device":"m","timestamp":"x","timestamp_us":5002000,"direction":"rx","data_base64":"DQpPSw0K"}
            {"device":"m","timestamp":"x","timestamp_us":5003000,"dropped_bytes":10}

            """
        let read = try Self.decode(trace)
        #expect(read.device == "m")
        #expect(read.entries.map(\.timeMicroseconds) == [0, 1000, 2000, 3000])
        #expect(read.entries[0].kind == .rx(replyTo: nil))
        #expect(read.entries[1].kind == .tx(client: 2, request: "1"))
        #expect(read.entries[2].kind == .rx(replyTo: 1))
        #expect(read.entries[2].bytes == Array("\r\nOK\r\n".utf8))
    }

    @Test func aTraceWhoseReadsNameTheirRequestIsAttributedByThem() throws {
        // A RING read while no request waited stays unsolicited though it came after a request.
        let trace = """
            {"device":"m","timestamp":"x","timestamp_us":100,"direction":"tx","client":2,"request":"a","data_base64":"QVQN"}
            {"device":"m","timestamp":"x","timestamp_us":200,"direction":"rx","client":2,"request":"a","data_base64":"DQpPSw0K"}
            {"device":"m","timestamp":"x","timestamp_us":300,"direction":"rx","data_base64":"UklORw0K"}
            {"device":"m","timestamp":"x","timestamp_us":400,"direction":"tx","client":3,"request":"a","data_base64":"QVQN"}
            {"device":"m","timestamp":"x","timestamp_us":500,"direction":"rx","client":3,"request":"a","data_base64":"DQpPSw0K"}

            """
        let read = try Self.decode(trace)
        #expect(
            read.entries.map(\.kind) == [
                .tx(client: 2, request: "\"a\""), .rx(replyTo: 0), .rx(replyTo: nil), .tx(client: 3, request: "\"a\""),
                .rx(replyTo: 3),
            ]
        )
    }

    @Test func hostileLinesAreErrorsNamingTheLine() {
        let header = #"{"format":"accessoryd-recording","version":1,"device":"m"}"#
        let header2 = #"{"format":"accessoryd-recording","version":2,"device":"m"}"#
        let cases: [(String, Int, String)] = [
            ("", 0, "empty"),
            (#"{"format":"accessoryd-recording","version":3,"device":"m"}"# + "\n", 1, "version 3 is not supported"),
            (#"{"format":"other","version":1}"# + "\n", 1, "not an accessoryd recording"),
            (header + "\n" + #"{"t_us":0,"dir":"tx","data_base64":"QVQ"#, 2, "truncated"),
            (header + "\n\u{01}\u{02}garbage\n", 2, "not a JSON object"),
            (header + "\n" + #"{"t_us":0,"dir":"rx","data_base64":"!!"}"# + "\n", 2, "not base64"),
            (
                header + "\n" + #"{"t_us":5,"dir":"rx","data_base64":""}"# + "\n"
                    + #"{"t_us":4,"dir":"rx","data_base64":""}"# + "\n", 3, "earlier"
            ),
            (header + "\n" + #"{"t_us":0,"dir":"rx","reply_to":1,"data_base64":""}"# + "\n", 2, "reply_to"),
            (header + "\n" + #"{"t_us":0,"dir":"up","data_base64":""}"# + "\n", 2, "\"dir\""),
            (header + "\n" + #"{"t_us":0,"event":"explode"}"# + "\n", 2, "\"event\" must be one of"),
            (header + "\n" + #"{"t_us":-1,"event":"open"}"# + "\n", 2, "t_us"),
            (header + "\n" + #"{"t_us":0,"event":"open","x":1}"# + "\n", 2, "unknown key \"x\""),
            (header + "\n[1,2]\n", 2, "found an array"),
            (header + "\n" + #"{"t_us":0}"# + "\n", 2, "a record needs"),
            (header + "\n" + #"{"t_us":0,"control":{"dtr":true}}"# + "\n", 2, "needs version 2"),
            (header2 + "\n" + #"{"t_us":0,"control":{"dtr":true,"rts":true}}"# + "\n", 2, "\"control\" must be"),
            (header2 + "\n" + #"{"t_us":0,"control":{"break_ms":-1}}"# + "\n", 2, "\"control\" must be"),
            (header2 + "\n" + #"{"t_us":0,"control":{"dtr":true},"data_base64":""}"# + "\n", 2, "unknown key"),
        ]
        for (text, line, fragment) in cases {
            let error = Self.error(text)
            #expect(error?.line == line, "\(text.debugDescription): \(String(describing: error))")
            #expect(error?.message.contains(fragment) == true, "\(text.debugDescription): \(String(describing: error))")
        }
    }

    @Test func aOneGigabyteLineIsRefusedWithoutReadingIt() throws {
        let folder = try FileIO.makeTemporaryDirectory(prefix: "/tmp/recording-test.")
        let path = folder + "/huge.jsonl"
        defer {
            try? FileIO.unlink(path)
            try? FileIO.removeDirectory(folder)
        }
        let header = Array(#"{"format":"accessoryd-recording","version":1,"device":"m"}"#.utf8) + [0x0A]
        do {
            let fd = try FileIO.open(path, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
            try FileIO.writeAll(fd.rawValue, header)
            // A sparse gigabyte of zeros: no disk used, and no newline in it.
            #expect(ftruncate(fd.rawValue, 1 << 30) == 0)
        }
        let start = MonotonicClock.nowNanoseconds()
        #expect(throws: RecordingError(line: 2, "longer than \(1 << 20) bytes")) {
            _ = try RecordingFile.read(path: path)
        }
        // Reading the whole gigabyte would take seconds; refusing after 1 MiB takes milliseconds.
        #expect(MonotonicClock.nowNanoseconds() - start < 2_000_000_000)
    }

    @Test func whatAFileMakesTheReaderKeepIsCountedFromTheFirstByte() {
        let header = #"{"format":"accessoryd-recording","version":1,"device":"m"}"# + "\n"
        func error(_ records: [String], _ limits: RecordingDecoder.Limits) -> RecordingError? {
            do {
                _ = try Self.decode(header + records.map { $0 + "\n" }.joined(), limits: limits)
                return nil
            } catch {
                return error
            }
        }
        // Records past the limit.
        let opens = Array(repeating: #"{"t_us":0,"event":"open"}"#, count: 4)
        #expect(error(opens, .init(maxEntries: 3))?.message.contains("more than 3 records") == true)
        #expect(error(opens, .init(maxEntries: 4)) == nil)
        // Traffic past the limit ("QVQN" is 3 bytes).
        let sends = Array(repeating: #"{"t_us":0,"dir":"tx","data_base64":"QVQN"}"#, count: 4)
        #expect(error(sends, .init(maxDataBytes: 11))?.line == 5)
        #expect(error(sends, .init(maxDataBytes: 12)) == nil)
        // A request id is kept too (twice): a file of long ids and no data is refused as well.
        let id = String(repeating: "x", count: 100)
        let named = Array(repeating: #"{"t_us":0,"dir":"tx","request":"\#(id)","data_base64":""}"#, count: 4)
        let refused = error(named, .init(maxDataBytes: 700))
        #expect(
            refused?.line == 5 && refused?.message.contains("request ids") == true,
            "\(String(describing: refused))"
        )
    }

    @Test func aMissingFileSaysSo() {
        #expect(throws: RecordingError.self) { _ = try RecordingFile.read(path: "/nonexistent/recording.jsonl") }
    }

    @Test func redactionMasksEveryMatchingByteKeepingLengths() throws {
        let redactor = try ByteRedactor(patterns: [#"AT\+CPIN="[0-9]+""#, "secret"])
        #expect(
            redactor.redact(Array("AT+CPIN=\"1234\"\r".utf8)) == Array("**************\r".utf8)
        )
        #expect(redactor.redact(Array("a secret\r\nsecret".utf8)) == Array("a ******\r\n******".utf8))
        #expect(throws: RecordingError.self) { _ = try ByteRedactor(patterns: ["(unclosed"]) }
    }

    @Test func byteExpressionsSeeCarriageReturnAndLineFeedAsTwoBytes() throws {
        let regex = try ByteRegex(#"AT\+CCLK=".*"\r"#)
        #expect(regex.matchesWhole(Array("AT+CCLK=\"24/06/01,12:00:00\"\r".utf8)))
        #expect(!regex.matchesWhole(Array("AT+CCLK=\"x\"\r\n".utf8)))
        #expect(try ByteRegex(#"\r\n"#).matches(in: Array("a\r\nb\r\n".utf8)) == [1..<3, 4..<6])
        #expect(try ByteRegex(#"\xff"#).matchesWhole([0xFF]))
    }
}
