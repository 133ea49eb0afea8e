import JSONCodec
import Testing

@testable import ControlProtocol
@testable import TrafficTrace

@Suite("trace layouts: text, hexdump, jsonl")
struct TraceLayoutTests {
    /// 2023-11-14T22:13:20.123456Z.
    static let instant: Int64 = 1_700_000_000_123_456

    func format(
        _ layout: TraceLayout,
        _ direction: TrafficRecord.Direction,
        _ bytes: [UInt8],
        client: UInt64? = nil,
        request: RequestID? = nil
    ) -> String {
        var out: [UInt8] = []
        bytes.withUnsafeBufferPointer {
            layout.append(
                device: "modem",
                timestampMicroseconds: Self.instant,
                direction: direction,
                client: client,
                request: request,
                bytes: $0,
                to: &out
            )
        }
        return String(decoding: out, as: UTF8.self)
    }

    @Test("UTC times: the epoch, a leap day, microseconds, before 1970")
    func utcTimes() {
        #expect(UTCTime.string(microseconds: 0) == "1970-01-01T00:00:00.000000")
        #expect(UTCTime.string(microseconds: 951_782_400_000_000) == "2000-02-29T00:00:00.000000")
        #expect(UTCTime.string(microseconds: Self.instant) == "2023-11-14T22:13:20.123456")
        #expect(UTCTime.string(microseconds: Self.instant, fractionDigits: 3) == "2023-11-14T22:13:20.123")
        #expect(UTCTime.string(microseconds: -1) == "1969-12-31T23:59:59.999999")
        #expect(
            UTCTime.string(microseconds: 4_107_542_400_000_000, separator: UInt8(ascii: " "))
                == "2100-03-01 00:00:00.000000"
        )
    }

    @Test("control records: the change in words in text and hexdump, a control object in jsonl that reads back")
    func controlRecords() throws {
        let dtr = LineControl.dtr(false).packed
        #expect(
            format(.text, .control, dtr, client: 3, request: .int(9))
                == "2023-11-14T22:13:20.123456Z control client 3 request 9: dtr off\n"
        )
        #expect(
            format(.hexdump, .control, LineControl.breakSent(milliseconds: 250).packed, client: 3)
                == "2023-11-14T22:13:20.123456Z control client 3: break 250 ms\n"
        )
        let line = format(.jsonl, .control, LineControl.rts(true).packed, client: 3, request: .int(9))
        #expect(line.contains(#""direction":"control","client":3,"request":9,"control":{"rts":true}}"#), "\(line)")
        #expect(!line.contains("data_base64"))
        let record = try TrafficRecord(json: JSONParser.parse(Array(line.utf8.dropLast())))
        #expect(record.control == .rts(true) && record.client == 3 && record.request == .int(9))
        for change in [
            LineControl.dtr(true), .rts(false), .breakSent(milliseconds: 0), .breakSent(milliseconds: 1 << 40),
        ] {
            #expect(LineControl(packed: change.packed) == change)
        }
        #expect(
            LineControl(packed: [0, 2]) == nil && LineControl(packed: [7]) == nil && LineControl(packed: []) == nil
        )
    }

    @Test("text: one line a record, with who sent it; escapes give back every byte")
    func textLines() {
        #expect(
            format(.text, .tx, Array("AT\r\n".utf8), client: 3, request: .int(7))
                == "2023-11-14T22:13:20.123456Z tx client 3 request 7: AT\\r\\n\n"
        )
        #expect(
            format(.text, .rx, [0x4F, 0x4B, 0x00, 0xFF, 0x5C, 0x09], client: nil)
                == "2023-11-14T22:13:20.123456Z rx: OK\\0\\xff\\\\\\t\n"
        )
        #expect(
            format(.text, .tx, [0x41], client: 12, request: .string("a b"))
                == "2023-11-14T22:13:20.123456Z tx client 12 request \"a b\": A\n"
        )
        let every = (0...255).map { UInt8($0) }
        let escaped = TrafficText.escaped(every)
        #expect(!escaped.utf8.contains(UInt8(ascii: "\n")))
        #expect(escaped.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F })
        #expect(TrafficText.unescape(Array(escaped.utf8)) == every)
        #expect(TrafficText.unescape(Array("\\q".utf8)) == nil)
    }

    @Test("hexdump: a head line with the count, then hexdump -C lines indented by two")
    func hexdumpLines() {
        let bytes = Array("0123456789abcdefXY\r\n".utf8)
        #expect(
            format(.hexdump, .rx, bytes)
                == """
                2023-11-14T22:13:20.123456Z rx: 20 bytes
                  00000000  30 31 32 33 34 35 36 37  38 39 61 62 63 64 65 66  |0123456789abcdef|
                  00000010  58 59 0d 0a                                       |XY..|

                """
        )
    }

    @Test("jsonl: each line parses as the notification's record, with the fields right")
    func jsonlRecords() throws {
        let bytes: [UInt8] = [0x41, 0x54, 0x0D, 0x0A, 0xFF]
        let line = format(.jsonl, .tx, bytes, client: 5, request: .string("q1"))
        #expect(line.hasSuffix("}\n"))
        #expect(line.utf8.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        let value = try JSONParser.parse(Array(line.utf8.dropLast()))
        let record = try TrafficRecord(json: value)
        #expect(
            record
                == TrafficRecord(
                    device: "modem",
                    timestampMicroseconds: Self.instant,
                    direction: .tx,
                    client: 5,
                    request: .string("q1"),
                    bytes: bytes
                )
        )
        #expect(value["timestamp"] == .string("2023-11-14T22:13:20.123456Z"))
        #expect(value["data_base64"] == .string("QVQNCv8="))
        let rx = try JSONParser.parse(Array(format(.jsonl, .rx, [0x4F]).utf8.dropLast()))
        #expect(rx["direction"] == .string("rx"))
        #expect(rx["client"] == nil && rx["request"] == nil)
    }

    @Test("the drop mark, in each layout")
    func dropMarks() throws {
        func mark(_ layout: TraceLayout) -> String {
            var out: [UInt8] = []
            layout.appendDropped(device: "modem", timestampMicroseconds: Self.instant, count: 1234, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
        #expect(mark(.text) == "2023-11-14T22:13:20.123456Z … 1234 bytes dropped …\n")
        #expect(mark(.hexdump) == mark(.text))
        let value = try JSONParser.parse(Array(mark(.jsonl).utf8.dropLast()))
        #expect(value["dropped_bytes"] == .number(.integer(1234)))
        #expect(value["timestamp_us"] == .number(.integer(Self.instant)))
    }
}
