/// Strict UTF-8 validation (Unicode 15, table 3-7): no overlong forms, no surrogates, nothing
/// above U+10FFFF, no truncated sequences.
///
/// Threading: stateless. Any thread.
package enum UTF8Validation {
    /// The length of the well-formed sequence starting at `index`, or `nil` if the bytes there
    /// are not well-formed UTF-8. `index` must be in bounds.
    @inlinable @inline(__always)
    public static func sequenceLength(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        let lead = bytes[index]
        if lead < 0x80 { return 1 }
        let remaining = bytes.count - index
        @inline(__always) func continuation(_ offset: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            offset < remaining && bytes[index + offset] >= low && bytes[index + offset] <= high
        }
        switch lead {
        case 0xC2...0xDF:
            return continuation(1) ? 2 : nil
        case 0xE0:
            return continuation(1, 0xA0) && continuation(2) ? 3 : nil
        case 0xE1...0xEC, 0xEE...0xEF:
            return continuation(1) && continuation(2) ? 3 : nil
        case 0xED:
            return continuation(1, 0x80, 0x9F) && continuation(2) ? 3 : nil
        case 0xF0:
            return continuation(1, 0x90) && continuation(2) && continuation(3) ? 4 : nil
        case 0xF1...0xF3:
            return continuation(1) && continuation(2) && continuation(3) ? 4 : nil
        case 0xF4:
            return continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3) ? 4 : nil
        default:
            return nil
        }
    }

    /// The offset of the first byte that does not start a well-formed sequence, or `nil` if
    /// all of `bytes` is valid UTF-8.
    package static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        let count = bytes.count
        while index < count {
            // ASCII fast path, eight bytes at a time. Any byte order: it asks only whether some
            // byte has its high bit set, and the byte loop below finds which.
            while index + 8 <= count {
                let word = UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 != 0 { break }
                index += 8
            }
            if index >= count { break }
            if bytes[index] < 0x80 {
                index += 1
                continue
            }
            guard let length = sequenceLength(in: bytes, at: index) else { return index }
            index += length
        }
        return nil
    }

    /// Whether `bytes` is entirely valid UTF-8.
    package static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        if let result = bytes.withContiguousStorageIfAvailable({ firstInvalidOffset(in: $0) == nil }) {
            return result
        }
        return Array(bytes).withUnsafeBufferPointer { firstInvalidOffset(in: $0) == nil }
    }
}
