import Glibc

/// The bytes streamed: a fixed pseudo-random pattern, repeated, so that the receiving side can
/// check every byte (in order) with `memcmp` at the same cost in both runs. Any thread.
struct Pattern: Sendable {
    static let length = 1 << 20
    let bytes: [UInt8]

    init() {
        var state: UInt64 = 0x1234_5678_9ABC_DEF0
        var out = [UInt8](repeating: 0, count: Pattern.length)
        for i in 0..<out.count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            out[i] = UInt8(truncatingIfNeeded: state >> 56)
        }
        bytes = out
    }

    /// `count` bytes of the stream starting at stream offset `offset` (count ≤ what wraps once).
    func chunk(at offset: Int, count: Int) -> [UInt8] {
        let start = offset % Pattern.length
        if start + count <= Pattern.length { return Array(bytes[start..<(start + count)]) }
        return Array(bytes[start...]) + Array(bytes[..<(count - (Pattern.length - start))])
    }

    /// Whether `received` is the stream's bytes at `offset`.
    func matches(_ received: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        var checked = 0
        while checked < received.count {
            let start = (offset + checked) % Pattern.length
            let n = Swift.min(received.count - checked, Pattern.length - start)
            let same = bytes.withUnsafeBytes { p in
                memcmp(p.baseAddress! + start, received.baseAddress! + checked, n) == 0
            }
            if !same { return false }
            checked += n
        }
        return true
    }
}
