import ArgumentParser
import ControlProtocol
import JSONCodec

/// How the DATA argument of `transact` and `write` is written: text (its UTF-8, the default),
/// `--hex` or `--base64`.
///
/// Threading: a value. Any thread.
struct PayloadOptions: ParsableArguments {
    @Flag(name: .long, help: "DATA is hexadecimal bytes (\"41 54 0d\", \"41540d\", \"0x41,0x54\").")
    var hex = false

    @Flag(name: .long, help: "DATA is base64.")
    var base64 = false

    func validate() throws {
        if hex && base64 { throw ValidationError("--hex and --base64 cannot be used together") }
    }

    /// The bytes `data` stands for.
    func bytes(_ data: String) throws(ValidationError) -> [UInt8] {
        if hex { return try Self.hexBytes(data) }
        if base64 {
            do throws(Base64Error) {
                return try Base64.decode(data)
            } catch {
                throw ValidationError("DATA is not valid base64: \(error)")
            }
        }
        return Array(data.utf8)
    }

    /// Hex digit pairs; spaces, tabs, `:`, `,`, `-` and `0x` prefixes between bytes are ignored.
    static func hexBytes(_ text: String) throws(ValidationError) -> [UInt8] {
        var digits: [UInt8] = []
        let characters = Array(text.utf8)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == UInt8(ascii: "0"), index + 1 < characters.count,
                characters[index + 1] | 0x20 == UInt8(ascii: "x"), digits.count % 2 == 0
            {
                index += 2
                continue
            }
            if let value = hexValue(character) {
                digits.append(value)
            } else if !" \t:,-".utf8.contains(character) {
                let shown = String(decoding: [character], as: UTF8.self)
                throw ValidationError("DATA is not hexadecimal: unexpected \"\(shown)\" at offset \(index)")
            }
            index += 1
        }
        guard digits.count % 2 == 0 else {
            throw ValidationError("DATA has an odd number of hex digits (\(digits.count)); each byte needs two")
        }
        return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Checks a millisecond option.
///
/// Threading: stateless. Any thread.
enum Milliseconds {
    /// Throws unless `value` is nil or within 1 ... one day.
    static func check(_ value: Int64?, _ option: String) throws(ValidationError) {
        guard let value else { return }
        guard value >= 1 && value <= ParamLimits.maxMilliseconds else {
            throw ValidationError("\(option) must be between 1 and \(ParamLimits.maxMilliseconds) milliseconds")
        }
    }
}
