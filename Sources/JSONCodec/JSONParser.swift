/// A strict RFC 8259 parser from UTF-8 bytes.
///
/// Strict means: exactly one value surrounded by optional whitespace (space, tab, CR, LF);
/// strings of well-formed UTF-8 with no raw control characters; escapes as RFC 8259 lists,
/// surrogate pairs combined and lone surrogates rejected; numbers as the grammar says (no
/// leading zeros, no `+`, no `.5`); duplicate object keys rejected (by default); arrays and
/// objects nested at most ``Options/maxDepth`` deep. No byte order mark.
/// The input is hostile: every read is bounds-checked and recursion is bounded by the depth.
///
/// Threading: a value. Any thread.
///
/// Public, not package, for one reason: its `@inlinable` members are inlined and specialized in
/// the modules that call them (ControlProtocol's encoders and fast path), which a package
/// declaration cannot be. Keeping them out of line cost about 900 instructions per `transact`.
public struct JSONParser {
    /// Limits and choices.
    ///
    /// Threading: a value. Any thread.
    package struct Options: Sendable, Equatable {
        /// The deepest nesting of arrays and objects accepted (`[[1]]` is 2).
        package var maxDepth: Int
        /// Whether an object with the same key twice is an error.
        package var rejectDuplicateKeys: Bool

        package init(maxDepth: Int = 64, rejectDuplicateKeys: Bool = true) {
            self.maxDepth = maxDepth
            self.rejectDuplicateKeys = rejectDuplicateKeys
        }
    }

    /// Parses exactly one JSON value from `bytes`.
    package static func parse(
        _ bytes: some Collection<UInt8>,
        options: Options = Options()
    ) throws(JSONParseError) -> JSONValue {
        let result =
            bytes.withContiguousStorageIfAvailable { parse(buffer: $0, options: options) }
            ?? Array(bytes).withUnsafeBufferPointer { parse(buffer: $0, options: options) }
        return try result.get()
    }

    /// Parses exactly one JSON value from the bytes of `buffer`.
    package static func parse(buffer: UnsafeBufferPointer<UInt8>, options: Options) -> Result<JSONValue, JSONParseError>
    {
        var parser = JSONParser(bytes: buffer, options: options)
        do throws(JSONParseError) {
            return .success(try parser.parseDocument())
        } catch {
            return .failure(error)
        }
    }

    @usableFromInline package let bytes: UnsafeBufferPointer<UInt8>
    let options: Options
    @usableFromInline package var position = 0
    var depth = 0

    package init(bytes: UnsafeBufferPointer<UInt8>, options: Options) {
        self.bytes = bytes
        self.options = options
    }

    private mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard position < bytes.count else { throw JSONParseError(.emptyInput, at: position) }
        let value = try parseValue()
        skipWhitespace()
        guard position == bytes.count else { throw JSONParseError(.trailingData, at: position) }
        return value
    }

    @inlinable @inline(__always)
    public mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): position += 1
            default: return
            }
        }
    }

    func unexpected(_ expected: String) -> JSONParseError {
        guard position < bytes.count else {
            return JSONParseError(.unexpectedEnd(expected: expected), at: position)
        }
        let byte = bytes[position]
        if byte >= 0x80 && UTF8Validation.sequenceLength(in: bytes, at: position) == nil {
            return JSONParseError(.invalidUTF8(byte), at: position)
        }
        return JSONParseError(.unexpectedByte(byte, expected: expected), at: position)
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard position < bytes.count else { throw unexpected("a JSON value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw unexpected("a JSON value")
        }
    }

    private mutating func parseLiteral(_ word: StaticString, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        let start = position
        for index in 0..<word.utf8CodeUnitCount {
            guard position < bytes.count, bytes[position] == word.utf8Start[index] else {
                if position == start { throw unexpected("a JSON value") }
                throw unexpected("'\(word)'")
            }
            position += 1
        }
        return value
    }

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > options.maxDepth { throw JSONParseError(.tooDeep(limit: options.maxDepth), at: position) }
        position += 1
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count && bytes[position] == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard position < bytes.count else { throw unexpected("',' or ']'") }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "]"):
                position += 1
                depth -= 1
                return .array(elements)
            default:
                throw unexpected("',' or ']' after an array element")
            }
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        var object = JSONObject()
        object.reserveCapacity(4)  // One allocation for a typical request or params object.
        var keySet: Set<String>? = nil
        skipWhitespace()
        if position < bytes.count && bytes[position] == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw unexpected("a string key")
            }
            let keyOffset = position
            let key = try parseString()
            if options.rejectDuplicateKeys {
                try checkDuplicate(key, in: object, keySet: &keySet, at: keyOffset)
            }
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                throw unexpected("':' after an object key")
            }
            position += 1
            skipWhitespace()
            object.append(key, try parseValue())
            skipWhitespace()
            guard position < bytes.count else { throw unexpected("',' or '}'") }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "}"):
                position += 1
                depth -= 1
                return .object(object)
            default:
                throw unexpected("',' or '}' after an object member")
            }
        }
    }

    /// Linear for small objects, a set once an object grows: never quadratic.
    private func checkDuplicate(
        _ key: String,
        in object: JSONObject,
        keySet: inout Set<String>?,
        at offset: Int
    ) throws(JSONParseError) {
        if keySet == nil && object.count < 16 {
            for member in object.members where member.key == key {
                throw JSONParseError(.duplicateKey(key), at: offset)
            }
            return
        }
        if keySet == nil { keySet = Set(object.members.map(\.key)) }
        if keySet!.insert(key).inserted == false {
            throw JSONParseError(.duplicateKey(key), at: offset)
        }
    }
}
