/// A value that writes itself as compact JSON.
///
/// Threading: whatever the conforming type says; the protocol adds no state.
public protocol JSONEncodable {
    /// Appends this value's compact JSON text to `buffer`.
    func encodeJSON(into buffer: inout [UInt8])

    /// The most bytes ``encodeJSON(into:)`` can write, if the type knows it (nil, the default,
    /// if not). With a bound, a response line is allocated once, at that size, and written with
    /// a ``JSONWriter`` (ControlProtocol's `ResponseEncoder.successLine(id:result:)`).
    var encodedSizeBound: Int? { get }

    /// Writes this value's compact JSON text; called only for a type with an
    /// ``encodedSizeBound``, with at least that much room. The default encodes into an array and
    /// copies it.
    func encodeJSON(into writer: inout JSONWriter)
}

extension JSONEncodable {
    public var encodedSizeBound: Int? { nil }

    public func encodeJSON(into writer: inout JSONWriter) {
        var bytes: [UInt8] = []
        encodeJSON(into: &bytes)
        bytes.withUnsafeBufferPointer { writer.append(contentsOf: $0) }
    }
}

extension JSONValue: JSONEncodable {
    public func encodeJSON(into buffer: inout [UInt8]) {
        JSONOutput.appendValue(self, to: &buffer)
    }
}

extension JSONObject: JSONEncodable {
    public func encodeJSON(into buffer: inout [UInt8]) {
        JSONOutput.appendObject(self, to: &buffer)
    }
}

/// The compact JSON serializer: appends straight into a caller's (reused) byte buffer, with no
/// intermediate `String`s. Output is always valid UTF-8 and valid JSON: strings have `"`, `\`
/// and every control character below U+0020 escaped; non-finite doubles are written as `null`.
///
/// Threading: stateless. Any thread.
///
/// Public, not package, for one reason: its `@inlinable` members are inlined and specialized in
/// the modules that call them (ControlProtocol's encoders and fast path), which a package
/// declaration cannot be. Keeping them out of line cost about 900 instructions per `transact`.
public enum JSONOutput {
    /// Appends any value.
    package static func appendValue(_ value: JSONValue, to buffer: inout [UInt8]) {
        switch value {
        case .null: appendLiteral("null", to: &buffer)
        case .bool(let flag): appendLiteral(flag ? "true" : "false", to: &buffer)
        case .number(let number): appendNumber(number, to: &buffer)
        case .string(let string): appendString(string, to: &buffer)
        case .array(let elements):
            buffer.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                appendValue(element, to: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
        case .object(let object):
            appendObject(object, to: &buffer)
        }
    }

    /// Appends an object, members in order.
    package static func appendObject(_ object: JSONObject, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "{"))
        for (index, member) in object.members.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            appendString(member.key, to: &buffer)
            buffer.append(UInt8(ascii: ":"))
            appendValue(member.value, to: &buffer)
        }
        buffer.append(UInt8(ascii: "}"))
    }

    /// Appends ASCII text verbatim. For the fixed pieces of a message (`{"jsonrpc":"2.0","id":`).
    @inlinable @inline(__always)
    public static func appendLiteral(_ text: StaticString, to buffer: inout [UInt8]) {
        text.withUTF8Buffer { buffer.append(contentsOf: $0) }
    }

    /// Appends a number. Integers exactly; doubles in Swift's shortest round-trip form.
    static func appendNumber(_ number: JSONNumber, to buffer: inout [UInt8]) {
        switch number {
        case .integer(let value):
            appendInteger(value, to: &buffer)
        case .double(let value):
            guard value.isFinite else {
                appendLiteral("null", to: &buffer)
                return
            }
            // Swift prints e.g. "1e+20", "0.1", "5e-324", "1.0": all valid JSON numbers.
            buffer.append(contentsOf: value.description.utf8)
        case .outOfRange(let text):
            if JSONNumberSyntax.isValid(text) {
                buffer.append(contentsOf: text.utf8)
            } else {
                appendLiteral("null", to: &buffer)
            }
        }
    }

    /// Appends a decimal integer.
    package static func appendInteger(_ value: Int64, to buffer: inout [UInt8]) {
        writeInteger(value, to: &buffer)
    }

    /// Writes a decimal integer to any sink (at most 20 bytes).
    @inlinable
    public static func writeInteger(_ value: Int64, to sink: inout some JSONSink) {
        if value >= 0 && value < 10 {
            sink.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        sink.withUnsafeOutput(maxCount: 20) { out in
            var digits = 0
            var rest = value.magnitude
            while rest > 0 {
                digits += 1
                rest /= 10
            }
            let sign = value < 0 ? 1 : 0
            if value < 0 { out[0] = UInt8(ascii: "-") }
            var magnitude = value.magnitude
            for index in stride(from: sign + digits - 1, through: sign, by: -1) {
                out[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            return sign + digits
        }
    }

    /// Appends a string literal with escapes.
    package static func appendString(_ string: String, to buffer: inout [UInt8]) {
        var string = string
        string.withUTF8 { appendEscaped(utf8: $0, to: &buffer) }
    }

    /// Appends bytes that are known to be valid UTF-8 as a string literal with escapes.
    /// Callers check validity first (``UTF8Validation``); invalid bytes would make invalid output.
    static func appendEscaped(utf8 bytes: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8]) {
        buffer.reserveCapacity(buffer.count + bytes.count + 2)
        writeEscaped(utf8: bytes, to: &buffer)
    }

    /// ``appendEscaped(utf8:to:)`` to any sink: at most six bytes a byte, and the two quotes.
    @inlinable
    public static func writeEscaped(utf8 bytes: UnsafeBufferPointer<UInt8>, to buffer: inout some JSONSink) {
        buffer.append(UInt8(ascii: "\""))
        var runStart = 0
        // Plain runs are crossed eight bytes at a time, to the next byte that needs a look.
        var index = JSONStringScan.firstNonPlain(in: bytes, from: 0)
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                if byte >= 0x80 { index = JSONStringScan.firstNonPlain(in: bytes, from: index) }
                continue
            }
            let at = index - 1
            if runStart < at {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<at]))
            }
            runStart = index
            buffer.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): buffer.append(byte)
            case 0x0A: buffer.append(UInt8(ascii: "n"))
            case 0x0D: buffer.append(UInt8(ascii: "r"))
            case 0x09: buffer.append(UInt8(ascii: "t"))
            case 0x08: buffer.append(UInt8(ascii: "b"))
            case 0x0C: buffer.append(UInt8(ascii: "f"))
            default:
                let hexDigits: StaticString = "0123456789abcdef"
                buffer.append(UInt8(ascii: "u"))
                buffer.append(UInt8(ascii: "0"))
                buffer.append(UInt8(ascii: "0"))
                buffer.append(hexDigits.utf8Start[Int(byte >> 4)])
                buffer.append(hexDigits.utf8Start[Int(byte & 0x0F)])
            }
            index = JSONStringScan.firstNonPlain(in: bytes, from: index)
        }
        if runStart < bytes.count {
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        }
        buffer.append(UInt8(ascii: "\""))
    }
}

/// Checks a number literal against the RFC 8259 grammar.
///
/// Threading: stateless. Any thread.
enum JSONNumberSyntax {
    static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        func digits() -> Int {
            let start = index
            while index < bytes.count && bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9") {
                index += 1
            }
            return index - start
        }
        if index < bytes.count && bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { return false }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            return false
        }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            if digits() == 0 { return false }
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                index += 1
            }
            if digits() == 0 { return false }
        }
        return index == bytes.count
    }
}
