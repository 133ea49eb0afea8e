import Testing

@testable import AccessorySimulator

/// The simulator's own codecs and parsers, without a pty. Test thread only (pure values).
@Suite struct CodecTests {
    static func payloads() -> [[UInt8]] {
        var rng = SplitMix64(seed: 42)
        var out: [[UInt8]] = [[], [0], [0xC0], [0xDB], [0xC0, 0xDB, 0xDC, 0xDD], [0, 0, 0]]
        out.append([UInt8](repeating: 7, count: 254))
        out.append([UInt8](repeating: 7, count: 255))
        out.append([UInt8](repeating: 7, count: 254) + [0])
        for length in [1, 2, 10, 300, 1000] {
            out.append((0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next() % 5 == 0 ? 0xC0 : rng.next()) })
            out.append((0..<length).map { _ in rng.next() % 3 == 0 ? 0 : UInt8(truncatingIfNeeded: rng.next()) })
        }
        return out
    }

    @Test func slipRoundTripsAtEveryChunkBoundary() {
        for payload in Self.payloads() where !payload.isEmpty {
            let encoded = SLIPCodec.encode(payload)
            #expect(encoded.first == SLIPCodec.end && encoded.last == SLIPCodec.end)
            #expect(!encoded.dropFirst().dropLast().contains(SLIPCodec.end))
            for split in 0...encoded.count {
                var d = SLIPCodec.Decoder()
                let frames = d.feed(encoded[..<split]) + d.feed(encoded[split...])
                #expect(frames == [payload], "split at \(split)")
            }
        }
    }

    @Test func slipDropsBadEscapesAndOverlongFrames() {
        var d = SLIPCodec.Decoder(maxLength: 4)
        let frames = d.feed([0xC0, 1, 0xDB, 0x05, 2, 0xC0, 1, 2, 3, 4, 5, 0xC0, 9, 0xC0])
        #expect(frames == [[9]])
        #expect(d.errors == 2)
    }

    @Test func cobsRoundTripsAtEveryChunkBoundary() {
        for payload in Self.payloads() {
            let encoded = COBSCodec.encode(payload)
            #expect(encoded.last == 0)
            #expect(!encoded.dropLast().contains(0))
            #expect(COBSCodec.decode(encoded.dropLast()) == payload)
            for split in stride(from: 0, through: encoded.count, by: max(1, encoded.count / 40)) {
                var d = COBSCodec.Decoder()
                let frames = d.feed(encoded[..<split]) + d.feed(encoded[split...])
                #expect(frames == [payload], "split at \(split)")
            }
        }
    }

    @Test func cobsKnownVectorsAndInvalidBlocks() {
        #expect(COBSCodec.encode([0x11, 0x22, 0x00, 0x33]) == [0x03, 0x11, 0x22, 0x02, 0x33, 0x00])
        #expect(COBSCodec.encode([0x00]) == [0x01, 0x01, 0x00])
        #expect(COBSCodec.decode([0x05, 0x11]) == nil)
        var d = COBSCodec.Decoder()
        #expect(d.feed([0x00, 0x00, 0x05, 0x11, 0x00, 0x02, 0x41, 0x00]) == [[0x41]])
        #expect(d.errors == 1)
    }

    @Test func nmeaChecksumMatchesTheClassicExample() {
        let classic = "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47"
        #expect(NMEASentence.isValid(classic))
        #expect(!NMEASentence.isValid(classic.replacingLast("*47", with: "*48")))
        #expect(NMEASentence.frame("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,") == classic + "\r\n")
    }

    @Test func gpsFixFormatsTimeDateAndPosition() {
        var fix = GPSFix()
        #expect(fix.ggaBody == "GPGGA,120000.00,5231.2000,N,01324.3000,E,1,08,0.9,34.0,M,46.9,M,,")
        fix.advance(by: .seconds(12 * 3600 + 1))
        #expect(fix.time == "000001.00")
        #expect(fix.date == "020624")
    }

    @Test func lineSplitterHandlesEachTerminatorAcrossChunks() {
        func split(_ t: LineTerminator, _ chunks: [String]) -> [String] {
            var s = LineSplitter(terminator: t, maxLength: 16)
            return chunks.flatMap { s.feed(Array($0.utf8)[...]) }.map {
                String(decoding: $0.content + $0.terminator, as: UTF8.self)
            }
        }
        #expect(split(.lf, ["ab\ncd", "\n"]) == ["ab\n", "cd\n"])
        #expect(split(.crlf, ["ab\r", "\ncd\re\r\n"]) == ["ab\r\n", "cd\re\r\n"])
        #expect(split(.cr, ["a\nb\r"]) == ["a\nb\r"])
        #expect(split(.any, ["a\r\nb\n", "c\r", "\nd\r"]) == ["a\r\n", "b\n", "c\r", "d\r"])
        #expect(split(.lf, ["0123456789abcdefXYZ\nok\n"]) == ["ok\n"])
    }

    @Test func faultFatesFollowTheDocumentedOrder() {
        let f = FaultSwitches(lateBy: .milliseconds(5), lateEvery: 3, garbageEvery: 2, dropEvery: 5, hangupAfter: 6)
        let fates = (1...7).map { f.fate(ofReply: $0, draw: 1) }
        #expect(
            fates == [
                .send(garbage: false, late: .zero),
                .send(garbage: true, late: .zero),
                .send(garbage: false, late: .milliseconds(5)),
                .send(garbage: true, late: .zero),
                .drop,
                .send(garbage: true, late: .milliseconds(5)),
                .hangUp,
            ]
        )
        #expect(FaultSwitches(garbageProbability: 0.5).fate(ofReply: 1, draw: 0.2) == .send(garbage: true, late: .zero))
    }

    @Test func atModemAnswersItsCommandSet() {
        var m = ATModemResponder(unsolicitedInterval: nil, maxLength: 100)
        #expect(m.respond(to: "at") == ["OK"])
        #expect(m.respond(to: "AT+CMGR=1").last == "OK")
        #expect(m.respond(to: "AT+CMGR=2") == ["+CME ERROR: 321"])
        #expect(m.respond(to: "AT+CMGR=x") == ["ERROR"])
        #expect(m.respond(to: "ATD123") == ["ERROR"])
        #expect(ATModemResponder.frame(["A", "B"]) == Array("\r\nA\r\n\r\nB\r\n".utf8))
    }
}
