import IOLoop

/// COBS (Consistent Overhead Byte Stuffing): each frame is COBS-encoded so that it contains no
/// zero byte, and ends with a zero.
///
/// The decoder holds at most the encoded size of a ``maxFrameSize`` payload; a longer run, a frame
/// that decodes too long, or a bad code byte is reported once and skipped up to the next zero.
/// Empty blocks (two zeros in a row) are ignored, so a sender may delimit frames on both sides
/// (``leadingDelimiter``) to cut off line noise before a frame.
///
/// Any thread (a value; one owner at a time).
public struct COBSFramer: Framer {
    public let maxFrameSize: Int
    /// Whether ``encode(_:)`` also puts a zero before each frame.
    public let leadingDelimiter: Bool

    private var buffer: [UInt8] = []
    private var discarding = false

    public init(maxFrameSize: Int = 4096, leadingDelimiter: Bool = false) {
        precondition(maxFrameSize > 0)
        self.maxFrameSize = maxFrameSize
        self.leadingDelimiter = leadingDelimiter
    }

    /// The longest encoding of a `maxFrameSize` payload (one code byte per 254 data bytes, plus one).
    public var maxEncodedSize: Int { maxFrameSize + maxFrameSize / 254 + 1 }

    public mutating func ingest(_ bytes: [UInt8], at now: LoopInstant) -> [FramerEvent] {
        var events: [FramerEvent] = []
        var runStart = 0
        let limit = maxEncodedSize
        for (i, b) in bytes.enumerated() where b == 0 {
            absorb(bytes[runStart..<i], limit: limit, into: &events)
            if discarding {
                discarding = false
            } else if !buffer.isEmpty {
                switch COBSFramer.decode(buffer) {
                case .success(let payload) where payload.count <= maxFrameSize:
                    events.append(.frame(payload))
                case .success:
                    events.append(.dropped(.frameTooLarge(limit: maxFrameSize, size: nil)))
                case .failure(let error):
                    events.append(.dropped(error))
                }
            }
            buffer.removeAll(keepingCapacity: true)
            runStart = i + 1
        }
        absorb(bytes[runStart...], limit: limit, into: &events)
        return events
    }

    /// Adds a run of non-zero bytes to the current frame, or starts skipping it when too long.
    private mutating func absorb(_ run: ArraySlice<UInt8>, limit: Int, into events: inout [FramerEvent]) {
        guard !discarding, !run.isEmpty else { return }
        if buffer.count + run.count > limit {
            events.append(.dropped(.frameTooLarge(limit: maxFrameSize, size: nil)))
            discarding = true
            buffer.removeAll(keepingCapacity: true)
        } else {
            buffer.append(contentsOf: run)
        }
    }

    public func encode(_ payload: [UInt8]) throws(FramingError) -> [UInt8] {
        guard payload.count <= maxFrameSize else { throw .payloadTooLarge(limit: maxFrameSize, size: payload.count) }
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + payload.count / 254 + 3)
        if leadingDelimiter { out.append(0) }
        var codeIndex = out.count
        out.append(0)  // placeholder for the first code
        var code: UInt8 = 1
        for (i, b) in payload.enumerated() {
            if b == 0 {
                out[codeIndex] = code
                codeIndex = out.count
                out.append(0)
                code = 1
            } else {
                out.append(b)
                code += 1
                // A full block (254 data bytes) ends here; a new one starts only if bytes follow,
                // so the encoding is the canonical one.
                if code == 0xFF && i + 1 < payload.count {
                    out[codeIndex] = code
                    codeIndex = out.count
                    out.append(0)
                    code = 1
                }
            }
        }
        out[codeIndex] = code
        out.append(0)
        return out
    }

    public mutating func reset() {
        buffer.removeAll()
        discarding = false
    }

    /// Decodes one block (without its zero delimiter).
    static func decode(_ block: [UInt8]) -> Result<[UInt8], FramingError> {
        var out: [UInt8] = []
        out.reserveCapacity(block.count)
        var i = 0
        let n = block.count
        while i < n {
            let code = Int(block[i])
            i += 1
            guard code != 0 else { return .failure(.invalidEncoding("a zero code byte")) }
            let end = i + code - 1
            guard end <= n else { return .failure(.invalidEncoding("a code byte runs past the end of the frame")) }
            out.append(contentsOf: block[i..<end])
            i = end
            if code != 0xFF && i < n { out.append(0) }
        }
        return .success(out)
    }
}
