import JSONCodec
import Testing

@testable import ControlProtocol

@Suite("Base64")
struct Base64Tests {
    @Test(
        "RFC 4648 test vectors",
        arguments: [
            ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ]
    )
    func vectors(plain: String, encoded: String) throws {
        #expect(Base64.encodedString(Array(plain.utf8)) == encoded)
        #expect(try Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test("all byte values and lengths round-trip")
    func roundTrip() throws {
        let bytes = (0..<256).map { UInt8($0) } + (0..<256).map { UInt8(255 - $0) }
        for length in 0...bytes.count {
            let slice = Array(bytes[0..<length])
            let encoded = Base64.encodedString(slice)
            #expect(try Base64.decode(encoded) == slice)
        }
        #expect(Base64.encodedString([0xFB, 0xFF]) == "+/8=")
    }

    @Test("long inputs, across the encoder's 3 KiB chunks")
    func acrossChunks() throws {
        for length in [3_071, 3_072, 3_073, 3_074, 6_144, 6_145, 10_000] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 8) }
            let encoded = Base64.encodedString(bytes)
            #expect(encoded.utf8.count == (length + 2) / 3 * 4)
            #expect(try Base64.decode(encoded) == bytes, "\(length) bytes")
        }
    }

    @Test("appended after what a buffer already holds, which stays as it was")
    func appendsAfterExistingBytes() throws {
        for length in 0...9 {
            let plain = (0..<length).map { UInt8(truncatingIfNeeded: 0xF0 + $0 * 37) }
            var buffer = Array("{\"data_base64\":\"".utf8)
            let prefix = buffer
            Base64.encode(plain, into: &buffer)
            #expect(Array(buffer[..<prefix.count]) == prefix)
            #expect(try Base64.decode(String(decoding: buffer[prefix.count...], as: UTF8.self)) == plain)
        }
    }

    @Test(
        "strict: invalid input is rejected with a reason",
        arguments: [
            ("Zg", "length 2 is not a multiple of 4"),
            ("Zm9vY", "length 5"),
            ("Zm9v\n", "length 5"),
            ("Zm 9", "invalid character byte 0x20 at offset 2"),
            ("Zm9!", "invalid character '!' at offset 3"),
            ("Zm9-", "invalid character '-' at offset 3"),  // base64url is not accepted
            ("Zm9_", "invalid character '_'"),
            ("Z===", "padding '=' at offset 1"),
            ("====", "padding '=' at offset 0"),
            ("Zg==Zg==", "padding '=' at offset 2"),
            ("Zm=v", "padding '=' at offset 2"),
            ("Zh==", "non-canonical"),
            ("Zm9=", "non-canonical"),
            ("Zm8=\u{0}\u{0}\u{0}\u{0}", "padding '=' at offset 3"),
            ("Zm8\u{0}", "invalid character byte 0x00 at offset 3"),
        ]
    )
    func invalid(text: String, message: String) {
        do {
            let bytes = try Base64.decode(text)
            Issue.record("decoded \(text) to \(bytes)")
        } catch {
            #expect(error.description.contains(message), "\(text): \(error)")
        }
    }

    @Test("non-ASCII input is an invalid character")
    func nonASCII() {
        #expect(throws: Base64Error.invalidCharacter(0xC3, at: 0)) { try Base64.decode("é==") }
    }
}
