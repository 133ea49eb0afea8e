/// Skips the part of a JSON string that needs no attention, eight bytes at a time on a
/// little-endian machine, one at a time elsewhere.
///
/// Why: parsing a `write` request and escaping a `device.data` frame touch every byte of the
/// payload, and a byte-at-a-time loop there was most of the daemon's streaming cost (about 40
/// instructions a byte in the parser). A "plain" byte is printable ASCII other than `"` and `\`:
/// inside a string literal it is copied as it is, in both directions.
///
/// Threading: stateless. Any thread.
///
/// Public, not package, for one reason: its `@inlinable` members are inlined and specialized in
/// the modules that call them (ControlProtocol's encoders and fast path), which a package
/// declaration cannot be. Keeping them out of line cost about 900 instructions per `transact`.
public enum JSONStringScan {
    /// The index of the first byte at or after `start` that is not plain, or `bytes.count` if
    /// there is none. On a little-endian machine plain ASCII is crossed eight bytes at a time,
    /// and the byte that stops the scan is found inside its word (the lowest flagged byte of the
    /// word's mask is exact): a short string, a key, is crossed in one step. Elsewhere it is
    /// ``firstNonPlainBytewise(in:from:)``, which answers the same.
    @inlinable @inline(__always)
    public static func firstNonPlain(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        #if _endian(little)
            guard let base = bytes.baseAddress else { return start }
            var index = start
            let count = bytes.count
            while index + 8 <= count {
                let mask = nonPlainMask(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                if mask != 0 { return index + mask.trailingZeroBitCount / 8 }
                index += 8
            }
            return firstNonPlainBytewise(in: bytes, from: index)
        #else
            return firstNonPlainBytewise(in: bytes, from: start)
        #endif
    }

    /// ``firstNonPlain(in:from:)`` one byte at a time: the portable scan (any byte order), the
    /// tail of the word scan, and what the tests compare the word scan with.
    @inlinable @inline(__always)
    public static func firstNonPlainBytewise(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        let count = bytes.count
        while index < count {
            if !isPlain(bytes[index]) { return index }
            index += 1
        }
        return count
    }

    /// Printable ASCII other than `"` and `\`.
    @inlinable @inline(__always)
    public static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x80 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }

    /// The high bit of each byte of `word` that is not plain, and possibly of bytes above such a
    /// byte (a borrow spreads only upwards, from a byte that really is flagged): on a
    /// little-endian load the lowest set bit marks the first non-plain byte exactly. Only
    /// little-endian callers locate a byte by the mask (`#if _endian(little)`).
    @inlinable @inline(__always)
    public static func nonPlainMask(_ word: UInt64) -> UInt64 {
        let nonASCII = word & highBits
        let control = (word &- 0x2020_2020_2020_2020) & ~word & highBits
        let quote = zeroBytes(word ^ 0x2222_2222_2222_2222)
        let backslash = zeroBytes(word ^ 0x5C5C_5C5C_5C5C_5C5C)
        return nonASCII | control | quote | backslash
    }

    @usableFromInline @inline(__always)
    static func zeroBytes(_ word: UInt64) -> UInt64 {
        (word &- ones) & ~word & highBits
    }

    @usableFromInline static let ones: UInt64 = 0x0101_0101_0101_0101
    @usableFromInline static let highBits: UInt64 = 0x8080_8080_8080_8080
}
