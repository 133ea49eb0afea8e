import AccessoryConfig
import Testing
import Transports

@testable import AccessoryCore

@Suite("pty view framing")
struct ViewFramingTests {
    func frames(_ framer: any Framer, _ chunks: [String]) -> [String] {
        var f = framer
        var out: [String] = []
        for c in chunks {
            for case .frame(let bytes) in f.ingest(Array(c.utf8)) { out.append(String(decoding: bytes, as: UTF8.self)) }
        }
        return out
    }

    let modem = FramingSettings(format: .line(delimiter: Array("\r\n".utf8), terminator: Array("\r".utf8)))

    @Test("a CR/LF line framing cuts a program's lines at any CR or LF, whatever the program ends them with")
    func crlfAnyEnding() {
        let f = ViewFraming.inputFramer(modem)
        #expect(frames(f, ["AT\r\nATI\r", "AT+CSQ\n", "\r\n", "ATZ"]) == ["AT", "ATI", "AT+CSQ"])
        #expect(frames(f, ["A", "T", "\r", "\nB\r"]) == ["AT", "B"])
    }

    @Test("a line longer than the frame limit is skipped to its end, and the next line is whole")
    func oversizeLine() {
        let small = FramingSettings(
            format: .line(delimiter: Array("\n".utf8), terminator: Array("\n".utf8)),
            maxFrameBytes: 4
        )
        var f = ViewFraming.inputFramer(small)
        let events = f.ingest(Array("123456789\nok\n".utf8))
        #expect(events == [.dropped(.frameTooLarge(limit: 4, size: nil)), .frame(Array("ok".utf8))])
    }

    @Test("other line endings are cut at the terminator the accessory expects")
    func otherTerminator() {
        let semi = FramingSettings(format: .line(delimiter: Array(";\n".utf8), terminator: Array(";".utf8)))
        #expect(frames(ViewFraming.inputFramer(semi), ["a;b;", "c"]) == ["a", "b"])
    }

    @Test("toward the program, a line gets the delimiter the accessory ended it with")
    func outputLine() {
        #expect(ViewFraming.output(Array("$GPGGA,1".utf8), modem) == Array("$GPGGA,1\r\n".utf8))
    }

    @Test("SLIP frames are encoded again toward the program, and the program's SLIP is decoded")
    func slipBothWays() {
        let slip = FramingSettings(format: .slip)
        let payload: [UInt8] = [1, 0xC0, 2]
        let wire = ViewFraming.output(payload, slip)
        #expect(wire != payload && wire.last == 0xC0)
        var f = ViewFraming.inputFramer(slip)
        #expect(f.ingest(wire) == [.frame(payload)])
    }

    @Test("idle-gap frames go to the program as they are")
    func idleGapAsIs() {
        let gap = FramingSettings(format: .idleGap(gapMs: 20))
        #expect(ViewFraming.output([9, 8, 7], gap) == [9, 8, 7])
    }
}
