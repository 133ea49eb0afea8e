/// MurmurHash2, 32-bit, as systemd hashes a subsystem, devtype or tag name for the kernel-side
/// filter of udev monitors (`string_hash32`: seed 0, words read little-endian on the machines
/// accessoryd runs on).
///
/// Any thread.
package enum MurmurHash2 {
    /// The hash of `bytes` with `seed`.
    package static func hash<Bytes: Collection>(_ bytes: Bytes, seed: UInt32 = 0) -> UInt32
    where Bytes.Element == UInt8 {
        let m: UInt32 = 0x5bd1_e995
        let data = Array(bytes)
        var h = seed ^ UInt32(truncatingIfNeeded: data.count)
        var i = 0
        while i + 4 <= data.count {
            var k = UInt32(data[i]) | UInt32(data[i + 1]) << 8 | UInt32(data[i + 2]) << 16 | UInt32(data[i + 3]) << 24
            k &*= m
            k ^= k >> 24
            k &*= m
            h &*= m
            h ^= k
            i += 4
        }
        let rest = data.count - i
        if rest > 0 {
            if rest >= 3 { h ^= UInt32(data[i + 2]) << 16 }
            if rest >= 2 { h ^= UInt32(data[i + 1]) << 8 }
            h ^= UInt32(data[i])
            h &*= m
        }
        h ^= h >> 13
        h &*= m
        h ^= h >> 15
        return h
    }

    /// The hash of a string's UTF-8 bytes, seed 0: what goes in the udev message header.
    package static func hash(_ string: String) -> UInt32 { hash(Array(string.utf8)) }

    /// The 64-bit Bloom filter bits of a tag (four 6-bit slices of its hash), as in udev messages.
    package static func bloom64(_ tag: String) -> UInt64 {
        let h = UInt64(hash(tag))
        return 1 << (h & 63) | 1 << ((h >> 6) & 63) | 1 << ((h >> 12) & 63) | 1 << ((h >> 18) & 63)
    }
}
