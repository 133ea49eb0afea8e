import IOLoop

/// SLIP (RFC 1055): frames end with `END` (0xC0); `END` and `ESC` (0xDB) inside a payload are sent
/// as `ESC ESC_END` (0xDB 0xDC) and `ESC ESC_ESC` (0xDB 0xDD).
///
/// Encoding puts an `END` before the payload too (the RFC's advice: it flushes line noise into an
/// empty frame, which the decoder ignores). A bad escape or an oversize frame is reported once and
/// skipped up to the next `END`. SLIP cannot carry an empty payload: it is sent, and ignored.
///
/// Any thread (a value; one owner at a time).
public struct SLIPFramer: Framer {
    public static let end: UInt8 = 0xC0
    public static let esc: UInt8 = 0xDB
    public static let escEnd: UInt8 = 0xDC
    public static let escEsc: UInt8 = 0xDD

    public let maxFrameSize: Int
    /// Whether ``encode(_:)`` starts each frame with an `END`.
    public let leadingEnd: Bool

    private var buffer: [UInt8] = []
    private var escaping = false
    private var discarding = false

    public init(maxFrameSize: Int = 4096, leadingEnd: Bool = true) {
        precondition(maxFrameSize > 0)
        self.maxFrameSize = maxFrameSize
        self.leadingEnd = leadingEnd
    }

    public mutating func ingest(_ bytes: [UInt8], at now: LoopInstant) -> [FramerEvent] {
        var events: [FramerEvent] = []
        for b in bytes {
            if b == SLIPFramer.end {
                if discarding {
                    discarding = false
                } else if escaping {
                    events.append(.dropped(.invalidEncoding("ESC followed by END")))
                } else if !buffer.isEmpty {
                    events.append(.frame(buffer))
                }
                buffer.removeAll(keepingCapacity: true)
                escaping = false
                continue
            }
            if discarding { continue }
            var value = b
            if escaping {
                escaping = false
                switch b {
                case SLIPFramer.escEnd: value = SLIPFramer.end
                case SLIPFramer.escEsc: value = SLIPFramer.esc
                default:
                    events.append(.dropped(.invalidEncoding("ESC followed by 0x\(String(b, radix: 16))")))
                    startDiscarding()
                    continue
                }
            } else if b == SLIPFramer.esc {
                escaping = true
                continue
            }
            if buffer.count == maxFrameSize {
                events.append(.dropped(.frameTooLarge(limit: maxFrameSize, size: nil)))
                startDiscarding()
                continue
            }
            buffer.append(value)
        }
        return events
    }

    public func encode(_ payload: [UInt8]) throws(FramingError) -> [UInt8] {
        guard payload.count <= maxFrameSize else { throw .payloadTooLarge(limit: maxFrameSize, size: payload.count) }
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + payload.count / 8 + 2)
        if leadingEnd { out.append(SLIPFramer.end) }
        for b in payload {
            switch b {
            case SLIPFramer.end: out.append(contentsOf: [SLIPFramer.esc, SLIPFramer.escEnd])
            case SLIPFramer.esc: out.append(contentsOf: [SLIPFramer.esc, SLIPFramer.escEsc])
            default: out.append(b)
            }
        }
        out.append(SLIPFramer.end)
        return out
    }

    public mutating func reset() {
        buffer.removeAll()
        escaping = false
        discarding = false
    }

    private mutating func startDiscarding() {
        discarding = true
        buffer.removeAll(keepingCapacity: true)
    }
}
