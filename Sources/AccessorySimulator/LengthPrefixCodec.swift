/// Length-prefixed frames, the simulator's own small implementation (independent of the daemon's
/// framers): a two-byte big-endian payload length, then the payload (the daemon's
/// `{type: length_prefixed, width: 2, endian: big}`).
///
/// Any thread (values).
package enum LengthPrefixCodec {
    /// The largest payload a two-byte prefix can announce.
    package static let maxPayload = 0xFFFF

    /// The prefix and `payload`; nil if the payload is too long for a two-byte prefix.
    package static func encode(_ payload: [UInt8]) -> [UInt8]? {
        guard payload.count <= maxPayload else { return nil }
        return [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
    }

    /// A stream decoder: feed bytes, get the completed frames. A frame longer than `maxLength`
    /// is skipped (its announced bytes are discarded as they arrive) and counted in `errors`.
    /// Owned by one user at a time.
    package struct Decoder {
        package let maxLength: Int
        package private(set) var errors = 0
        private var pending: [UInt8] = []
        /// Bytes still to discard of a frame that was too long.
        private var skipping = 0

        package init(maxLength: Int = 65_536) { self.maxLength = maxLength }

        package mutating func feed(_ bytes: some Sequence<UInt8>) -> [[UInt8]] {
            pending.append(contentsOf: bytes)
            var frames: [[UInt8]] = []
            var start = 0
            while true {
                if skipping > 0 {
                    let n = min(skipping, pending.count - start)
                    skipping -= n
                    start += n
                    if skipping > 0 { break }
                }
                guard pending.count - start >= 2 else { break }
                let length = Int(pending[start]) << 8 | Int(pending[start + 1])
                if length > maxLength {
                    errors += 1
                    skipping = length
                    start += 2
                    continue
                }
                guard pending.count - start - 2 >= length else { break }
                frames.append(Array(pending[(start + 2)..<(start + 2 + length)]))
                start += 2 + length
            }
            pending.removeFirst(start)
            return frames
        }
    }
}
