/// Finds a byte value eight bytes at a time: the framers' and the control server's line scans
/// run over every byte received.
///
/// Threading: stateless. Any thread.
public enum ByteSearch {
    /// The index of the first `value` in `bytes[start..<end]`, or `nil`.
    @inline(__always)
    public static func firstIndex(of value: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int)
        -> Int?
    {
        guard let base = bytes.baseAddress, start < end else { return nil }
        var index = start
        let pattern = UInt64(value) &* 0x0101_0101_0101_0101
        while index + 8 <= end {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) ^ pattern
            // Some byte of `word` is zero (is `value`) exactly when this borrows into its top bit.
            if (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 != 0 { break }
            index += 8
        }
        while index < end {
            if base[index] == value { return index }
            index += 1
        }
        return nil
    }
}
