/// Why a byte sequence is not one JSON value, and where.
///
/// Threading: a value. Any thread.
package struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    ///
    /// Threading: a value. Any thread.
    package enum Kind: Sendable, Equatable {
        /// Nothing but whitespace.
        case emptyInput
        /// The input ended while something (`expected`) was still due.
        case unexpectedEnd(expected: String)
        /// A byte that cannot appear here.
        case unexpectedByte(UInt8, expected: String)
        /// A byte that does not start well-formed UTF-8.
        case invalidUTF8(UInt8)
        /// A raw control character (below U+0020) inside a string.
        case controlCharacter(UInt8)
        /// A backslash escape that JSON does not define, or a malformed `\u` escape.
        case invalidEscape(String)
        /// A `\uD800`–`\uDFFF` escape without its partner.
        case loneSurrogate(UInt16)
        /// A number that breaks the JSON grammar.
        case invalidNumber(String)
        /// Arrays and objects nested deeper than the limit.
        case tooDeep(limit: Int)
        /// An object with the same key twice.
        case duplicateKey(String)
        /// More than whitespace after the value.
        case trailingData
    }

    package var kind: Kind
    /// Zero-based byte offset into the input.
    package var offset: Int

    package init(_ kind: Kind, at offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    /// One-based column of the offending byte (the line is one line).
    package var column: Int { offset + 1 }

    package var description: String {
        let at = "at column \(column)"
        switch kind {
        case .emptyInput:
            return "empty input: expected a JSON value"
        case .unexpectedEnd(let expected):
            return "unexpected end of input \(at): expected \(expected)"
        case .unexpectedByte(let byte, let expected):
            return "unexpected \(Self.describe(byte)) \(at): expected \(expected)"
        case .invalidUTF8(let byte):
            return "invalid UTF-8 (byte 0x\(Self.hex(byte))) \(at): JSON text must be UTF-8; "
                + "send binary payloads as data_base64"
        case .controlCharacter(let byte):
            return
                "unescaped control character 0x\(Self.hex(byte)) in a string \(at): write it as \\u00\(Self.hex(byte))"
        case .invalidEscape(let escape):
            return "invalid escape \(escape) \(at)"
        case .loneSurrogate(let unit):
            return "unpaired UTF-16 surrogate \\u\(Self.hex(unit)) \(at)"
        case .invalidNumber(let reason):
            return "invalid number \(at): \(reason)"
        case .tooDeep(let limit):
            return "arrays and objects nested deeper than \(limit) levels \(at)"
        case .duplicateKey(let key):
            return "duplicate key \(ValueDescription.quoted(key)) \(at)"
        case .trailingData:
            return "unexpected data after the JSON value \(at) (send one JSON object per line)"
        }
    }

    static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F {
            return "character '\(Character(Unicode.Scalar(byte)))'"
        }
        return "byte 0x\(hex(byte))"
    }

    static func hex(_ value: some FixedWidthInteger) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        let width = value.bitWidth / 4
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
