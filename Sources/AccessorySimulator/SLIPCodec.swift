/// SLIP (RFC 1055), the simulator's own small implementation (independent of the daemon's
/// framers, so that each can test the other).
///
/// Encoding puts END before and after the payload, as RFC 1055 recommends (the leading END
/// flushes line noise); decoding ignores empty frames.
///
/// Any thread (values).
package enum SLIPCodec {
    package static let end: UInt8 = 0xC0
    package static let esc: UInt8 = 0xDB
    package static let escEnd: UInt8 = 0xDC
    package static let escEsc: UInt8 = 0xDD

    /// `END <escaped payload> END`.
    package static func encode(_ payload: some Sequence<UInt8>) -> [UInt8] {
        var out: [UInt8] = [end]
        for b in payload {
            switch b {
            case end: out += [esc, escEnd]
            case esc: out += [esc, escEsc]
            default: out.append(b)
            }
        }
        out.append(end)
        return out
    }

    /// A stream decoder: feed bytes, get the completed frames. A frame with an invalid escape or
    /// longer than `maxLength` is dropped and counted in `errors`. Owned by one user at a time.
    package struct Decoder {
        package let maxLength: Int
        package private(set) var errors = 0
        private var frame: [UInt8] = []
        private var escaped = false
        private var bad = false

        package init(maxLength: Int = 65_536) { self.maxLength = maxLength }

        package mutating func feed(_ bytes: some Sequence<UInt8>) -> [[UInt8]] {
            var frames: [[UInt8]] = []
            for b in bytes {
                if b == SLIPCodec.end {
                    if bad || escaped {
                        errors += 1
                    } else if !frame.isEmpty {
                        frames.append(frame)
                    }
                    frame.removeAll(keepingCapacity: true)
                    escaped = false
                    bad = false
                    continue
                }
                if bad { continue }
                var value = b
                if escaped {
                    escaped = false
                    switch b {
                    case SLIPCodec.escEnd: value = SLIPCodec.end
                    case SLIPCodec.escEsc: value = SLIPCodec.esc
                    default:
                        bad = true
                        continue
                    }
                } else if b == SLIPCodec.esc {
                    escaped = true
                    continue
                }
                if frame.count == maxLength {
                    bad = true
                    frame.removeAll()
                    continue
                }
                frame.append(value)
            }
            return frames
        }
    }
}
