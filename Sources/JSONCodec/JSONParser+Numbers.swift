/// Number literals: the RFC 8259 grammar, exact `Int64`s, and out-of-range literals kept as text.
extension JSONParser {
    @inlinable @inline(__always)
    public func isDigit(at index: Int) -> Bool {
        index < bytes.count && bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9")
    }

    mutating func skipDigits() {
        while isDigit(at: position) { position += 1 }
    }

    package mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = position
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let digitsStart = position
        guard isDigit(at: position) else {
            throw JSONParseError(.invalidNumber("expected a digit after '-'"), at: position)
        }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if isDigit(at: position) {
                throw JSONParseError(.invalidNumber("leading zeros are not allowed"), at: start)
            }
        } else {
            skipDigits()
        }
        let digitsEnd = position
        var isInteger = true
        if position < bytes.count && bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard isDigit(at: position) else {
                throw JSONParseError(.invalidNumber("expected a digit after '.'"), at: position)
            }
            skipDigits()
        }
        if position < bytes.count && (bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E")) {
            isInteger = false
            position += 1
            if position < bytes.count && (bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-"))
            {
                position += 1
            }
            guard isDigit(at: position) else {
                throw JSONParseError(.invalidNumber("expected a digit in the exponent"), at: position)
            }
            skipDigits()
        }
        let literal = UnsafeBufferPointer(rebasing: bytes[start..<position])
        if isInteger {
            if let value = Self.exactInteger(bytes: bytes, digits: digitsStart..<digitsEnd, negative: negative) {
                return .integer(value)
            }
            return .outOfRange(String(decoding: literal, as: UTF8.self))
        }
        let text = String(decoding: literal, as: UTF8.self)
        if let value = Double(text), value.isFinite {
            return .double(value)
        }
        return .outOfRange(text)
    }

    /// The integer, or `nil` if it does not fit `Int64`. Accumulates negatively so that
    /// `Int64.min` fits.
    static func exactInteger(
        bytes: UnsafeBufferPointer<UInt8>,
        digits: Range<Int>,
        negative: Bool
    ) -> Int64? {
        if digits.count > 19 { return nil }
        var value: Int64 = 0
        for index in digits {
            let digit = Int64(bytes[index] - UInt8(ascii: "0"))
            let (multiplied, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (subtracted, overflow2) = multiplied.subtractingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = subtracted
        }
        if negative { return value }
        return value == .min ? nil : -value
    }
}
