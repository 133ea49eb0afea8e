import JSONCodec
import Testing

@testable import ControlProtocol

/// The parser and the escaper skip plain ASCII eight bytes at a time; these put every kind of
/// byte that needs attention at every offset around the word edges, and compare with what a
/// byte-by-byte escaper writes.
@Suite("JSON strings: word-at-a-time scans")
struct JSONStringScanTests {
    /// What RFC 8259 requires, one scalar at a time, written the way the encoder writes it.
    func referenceLiteral(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{8}": out += "\\b"
            case "\u{c}": out += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u00" + (hex.count == 1 ? "0" : "") + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static let specials = ["\"", "\\", "\n", "\u{1}", "\u{1f}", "\u{7f}", " ", "~", "é", "€", "😀"]

    @Test("a special byte at every offset, in strings of 0 to 33 bytes: escaped as byte by byte, parsed back")
    func everyOffset() throws {
        for special in Self.specials {
            for length in 0...33 {
                for at in 0...length {
                    let text = String(repeating: "a", count: at) + special + String(repeating: "b", count: length - at)
                    let encoded = JSONValue.string(text).description
                    #expect(encoded == referenceLiteral(text), "\(special.debugDescription) at \(at) of \(length)")
                    #expect(try JSONParser.parse(Array(encoded.utf8)) == .string(text))
                    // The same text with an escape before it: the parser's slow path scans it.
                    let escapedFirst = "\"\\t" + encoded.dropFirst()
                    #expect(try JSONParser.parse(Array(escapedFirst.utf8)) == .string("\t" + text))
                }
            }
        }
    }

    @Test("a raw control character or a bad UTF-8 byte at every offset is refused at that offset")
    func refusedAtTheirOffset() {
        for bad: UInt8 in [0x00, 0x0A, 0x1F, 0x80, 0xC0, 0xFF] {
            for length in 0...33 {
                for at in 0...length {
                    var bytes: [UInt8] = [UInt8(ascii: "\"")] + Array(repeating: UInt8(ascii: "a"), count: length + 1)
                    bytes[1 + at] = bad
                    bytes.append(UInt8(ascii: "\""))
                    do {
                        _ = try JSONParser.parse(bytes)
                        Issue.record("byte \(bad) at \(at) of \(length) was accepted")
                    } catch {
                        #expect(error.offset == 1 + at, "byte \(bad) at \(at) of \(length)")
                    }
                }
            }
        }
    }

    @Test("seeded random strings of specials and plain text: escaped as byte by byte, parsed back")
    func randomStrings() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let alphabet = Self.specials + ["a", "b", "0", "{", "}"]
        for _ in 0..<2_000 {
            let text = (0..<next(70)).map { _ in alphabet[next(next(3) == 0 ? alphabet.count : 6)] }.joined()
            let encoded = JSONValue.string(text).description
            #expect(encoded == referenceLiteral(text))
            #expect(try JSONParser.parse(Array(encoded.utf8)) == .string(text))
        }
    }

    /// The word scan runs only on little-endian machines; elsewhere the byte-at-a-time scan is
    /// the one used. Both are compiled everywhere, and must answer the same for every input and
    /// every start offset (the word scan's edge cases: a flagged byte at each position of a
    /// word, one flagged byte after many plain words, a borrow from a flagged byte below).
    @Test("the portable byte-at-a-time scan answers as the word scan, at every start, on random and edge inputs")
    func bytewiseFallbackMatchesWordScan() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        // Bytes next to each class boundary, and plain ones.
        let interesting: [UInt8] = [0x00, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7E, 0x7F, 0x80, 0xC3, 0xFF]
        var inputs: [[UInt8]] = []
        for byte in interesting {
            for at in 0..<24 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 24)
                bytes[at] = byte
                inputs.append(bytes)
            }
        }
        for _ in 0..<3_000 {
            let plainRun = next(4) == 0
            inputs.append(
                (0..<next(40)).map { _ in
                    plainRun && next(8) != 0 ? UInt8(0x23 + next(0x38)) : UInt8(truncatingIfNeeded: next(256))
                }
            )
        }
        var compared = 0
        for bytes in inputs {
            bytes.withUnsafeBufferPointer { buffer in
                for start in 0...buffer.count {
                    let word = JSONStringScan.firstNonPlain(in: buffer, from: start)
                    let bytewise = JSONStringScan.firstNonPlainBytewise(in: buffer, from: start)
                    if word != bytewise {
                        Issue.record("\(bytes) from \(start): word scan \(word), byte scan \(bytewise)")
                    }
                    compared += 1
                }
            }
        }
        #expect(compared > 50_000)
    }
}
