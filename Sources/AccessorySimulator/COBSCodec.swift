/// Consistent Overhead Byte Stuffing, the simulator's own small implementation (independent of
/// the daemon's framers). Each encoded frame is followed by one 0x00 delimiter.
///
/// Any thread (values).
package enum COBSCodec {
    /// The COBS encoding of `payload` followed by the 0x00 delimiter.
    package static func encode(_ payload: some Sequence<UInt8>) -> [UInt8] {
        var out: [UInt8] = [0]
        var codeIndex = 0
        var code: UInt8 = 1
        for b in payload {
            if b == 0 {
                out[codeIndex] = code
                codeIndex = out.count
                out.append(0)
                code = 1
                continue
            }
            out.append(b)
            code += 1
            if code == 0xFF {
                out[codeIndex] = code
                codeIndex = out.count
                out.append(0)
                code = 1
            }
        }
        out[codeIndex] = code
        out.append(0)
        return out
    }

    /// Decodes one encoded block (without its delimiter); nil if it is not valid COBS.
    package static func decode(_ block: some Collection<UInt8>) -> [UInt8]? {
        let bytes = Array(block)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let code = Int(bytes[i])
            if code == 0 { return nil }
            let end = i + code
            if end > bytes.count { return nil }
            out.append(contentsOf: bytes[(i + 1)..<end])
            i = end
            if code < 0xFF && i < bytes.count { out.append(0) }
        }
        return out
    }

    /// A stream decoder: feed bytes, get the completed frames. An invalid block or one longer than
    /// allowed is dropped and counted in `errors`; empty blocks (two delimiters in a row) are
    /// ignored. Owned by one user at a time.
    package struct Decoder {
        package let maxLength: Int
        package private(set) var errors = 0
        private var block: [UInt8] = []
        private var overlong = false

        /// `maxLength` bounds the decoded payload.
        package init(maxLength: Int = 65_536) { self.maxLength = maxLength }

        package mutating func feed(_ bytes: some Sequence<UInt8>) -> [[UInt8]] {
            var frames: [[UInt8]] = []
            for b in bytes {
                if b != 0 {
                    // An encoded block is at most one byte per 254 longer than its payload.
                    if block.count > maxLength + maxLength / 254 + 1 {
                        overlong = true
                        block.removeAll()
                    }
                    if !overlong { block.append(b) }
                    continue
                }
                defer {
                    block.removeAll(keepingCapacity: true)
                    overlong = false
                }
                if overlong {
                    errors += 1
                    continue
                }
                if block.isEmpty { continue }
                if let frame = COBSCodec.decode(block), frame.count <= maxLength {
                    frames.append(frame)
                } else {
                    errors += 1
                }
            }
            return frames
        }
    }
}
