/// String literals: the escape-free fast path, escapes, surrogate pairs, UTF-8 validation.
extension JSONParser {
    /// A string literal's content: where it lies in the line (it had no escapes), or its bytes
    /// with the escapes undone.
    package enum StringContent {
        case inLine(Range<Int>)
        case unescaped([UInt8])
    }

    /// Parses a string starting at its opening quote.
    package mutating func parseString() throws(JSONParseError) -> String {
        string(try parseStringContent())
    }

    /// The `String` of a string's content (``parseStringContent()``).
    package func string(_ content: StringContent) -> String {
        switch content {
        case .inLine(let range): String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        case .unescaped(let scratch): String(decoding: scratch, as: UTF8.self)
        }
    }

    /// Parses a string starting at its opening quote, for its UTF-8 bytes (no `String` is made).
    package mutating func parseStringBytes() throws(JSONParseError) -> [UInt8] {
        switch try parseStringContent() {
        case .inLine(let range): Array(UnsafeBufferPointer(rebasing: bytes[range]))
        case .unescaped(let scratch): scratch
        }
    }

    /// Whether `content` is the bytes of `literal`. For literals of ASCII letters, digits, `.`
    /// and `_` this is what `String`'s `==` says too: no other character is canonically
    /// equivalent to one of those.
    package func content(_ content: StringContent, is literal: StaticString) -> Bool {
        switch content {
        case .inLine(let range): return Self.equal(UnsafeBufferPointer(rebasing: bytes[range]), literal)
        case .unescaped(let scratch): return scratch.withUnsafeBufferPointer { Self.equal($0, literal) }
        }
    }

    /// Byte equality over raw pointers: the generic `elementsEqual` walks both sides through
    /// iterators, ~100 instructions for a short value, and values are compared on every request.
    /// (A plain loop, not `memcmp`: `SystemCalls` is the one module that calls libc.)
    private static func equal(_ a: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard a.count == count else { return false }
        guard count > 0, let base = a.baseAddress else { return true }
        let expected = literal.utf8Start
        for i in 0..<count where base[i] != expected[i] { return false }
        return true
    }

    /// Parses a string starting at its opening quote; its validated content.
    package mutating func parseStringContent() throws(JSONParseError) -> StringContent {
        position += 1
        let start = position
        // Fast path: no escapes. Validates UTF-8 and control characters as it goes. Plain ASCII
        // is crossed eight bytes at a time, to the first byte that needs a look (for a key, the
        // closing quote, in one step).
        position = JSONStringScan.firstNonPlain(in: bytes, from: position)
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return .inLine(start..<(position - 1))
            }
            if byte == UInt8(ascii: "\\") { break }
            try advanceOverStringByte(byte)
            position = JSONStringScan.firstNonPlain(in: bytes, from: position)
        }
        guard position < bytes.count else { throw unexpected("'\"' to end the string") }
        var scratch: [UInt8] = []
        scratch.reserveCapacity(position - start + 16)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return .unescaped(scratch)
            }
            if byte == UInt8(ascii: "\\") {
                try parseEscape(into: &scratch)
                continue
            }
            // A run of plain bytes up to the next escape or the end, copied in one go.
            let runStart = position
            try advanceOverStringByte(byte)
            position = JSONStringScan.firstNonPlain(in: bytes, from: position)
            while position < bytes.count, bytes[position] != UInt8(ascii: "\"") && bytes[position] != UInt8(ascii: "\\")
            {
                try advanceOverStringByte(bytes[position])
                position = JSONStringScan.firstNonPlain(in: bytes, from: position)
            }
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
        }
        throw unexpected("'\"' to end the string")
    }

    @inline(__always)
    mutating func advanceOverStringByte(_ byte: UInt8) throws(JSONParseError) {
        if byte < 0x20 { throw JSONParseError(.controlCharacter(byte), at: position) }
        if byte < 0x80 {
            position += 1
            return
        }
        guard let length = UTF8Validation.sequenceLength(in: bytes, at: position) else {
            throw JSONParseError(.invalidUTF8(byte), at: position)
        }
        position += length
    }

    mutating func parseEscape(into scratch: inout [UInt8]) throws(JSONParseError) {
        let escapeStart = position
        position += 1
        guard position < bytes.count else { throw unexpected("an escape character after '\\'") }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try parseHex4(escapeStart: escapeStart)
            var scalarValue = UInt32(unit)
            if unit >= 0xDC00 && unit <= 0xDFFF {
                throw JSONParseError(.loneSurrogate(unit), at: escapeStart)
            }
            if unit >= 0xD800 && unit <= 0xDBFF {
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else {
                    throw JSONParseError(.loneSurrogate(unit), at: escapeStart)
                }
                let lowStart = position
                position += 2
                let low = try parseHex4(escapeStart: lowStart)
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    throw JSONParseError(.loneSurrogate(unit), at: escapeStart)
                }
                scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            }
            // Every value that reaches here is a valid scalar (surrogates were handled above).
            let scalar = Unicode.Scalar(scalarValue) ?? "\u{FFFD}"
            scratch.append(contentsOf: UTF8.encode(scalar)!)
        default:
            if byte >= 0x20 && byte < 0x7F {
                throw JSONParseError(.invalidEscape("'\\\(Character(Unicode.Scalar(byte)))'"), at: escapeStart)
            }
            throw JSONParseError(.invalidEscape("'\\' followed by byte 0x\(JSONParseError.hex(byte))"), at: escapeStart)
        }
    }

    mutating func parseHex4(escapeStart: Int) throws(JSONParseError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard position < bytes.count else { throw unexpected("four hex digits after '\\u'") }
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default:
                throw JSONParseError(.invalidEscape("'\\u' needs four hex digits"), at: escapeStart)
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }
}
