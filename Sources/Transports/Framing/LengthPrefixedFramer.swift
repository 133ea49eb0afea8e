import IOLoop

/// Frames preceded by their payload length in 1, 2 or 4 bytes, big- or little-endian.
///
/// A length over ``maxFrameSize`` is reported as soon as the prefix is complete (a 2 GiB claim
/// costs nothing) and the claimed bytes are skipped as they arrive, so a real oversize frame
/// leaves the stream in step. A length prefix has no sync marker, so garbage cannot be told from
/// a frame; with ``resyncAfterIdle`` set, silence that long in the middle of a frame (or of a
/// skip) abandons it and the next byte is read as a new prefix: the usual way such devices
/// resynchronise.
///
/// Any thread (a value; one owner at a time).
public struct LengthPrefixedFramer: Framer {
    public enum Endianness: String, Sendable, Hashable {
        case big, little
    }

    /// Prefix size in bytes: 1, 2 or 4.
    public let prefixSize: Int
    public let endianness: Endianness
    public let maxFrameSize: Int
    public let resyncAfterIdle: Duration?

    private var header: [UInt8] = []
    /// The length of the frame being read, once its prefix is complete.
    private var expected: Int?
    private var payload: [UInt8] = []
    /// Bytes still to skip of an oversize frame.
    private var skipping = 0
    private var lastByteAt: LoopInstant?

    public init(
        prefixSize: Int = 2,
        endianness: Endianness = .big,
        maxFrameSize: Int = 4096,
        resyncAfterIdle: Duration? = nil
    ) {
        precondition([1, 2, 4].contains(prefixSize), "the length prefix has 1, 2 or 4 bytes")
        precondition(maxFrameSize > 0)
        self.prefixSize = prefixSize
        self.endianness = endianness
        self.maxFrameSize = maxFrameSize
        self.resyncAfterIdle = resyncAfterIdle
    }

    private var isMidFrame: Bool { !header.isEmpty || expected != nil || skipping > 0 }

    public var actsOnSilence: Bool { resyncAfterIdle != nil }

    public var idleDeadline: LoopInstant? {
        guard let gap = resyncAfterIdle, isMidFrame, let last = lastByteAt else { return nil }
        return last + gap
    }

    public mutating func flush(at now: LoopInstant) -> [FramerEvent] {
        guard let deadline = idleDeadline, now >= deadline else { return [] }
        var events: [FramerEvent] = []
        if let expected {
            events.append(.dropped(.truncated(expected: expected, received: payload.count)))
        } else if !header.isEmpty {
            events.append(.dropped(.truncated(expected: prefixSize, received: header.count)))
        }
        // A skip in progress was reported when it began.
        reset()
        return events
    }

    public mutating func ingest(_ bytes: [UInt8], at now: LoopInstant) -> [FramerEvent] {
        // Silence that ended before these bytes counts even if no timer fired for it.
        var events = flush(at: now)
        if !bytes.isEmpty { lastByteAt = now }
        var i = 0
        let n = bytes.count
        while i < n {
            if skipping > 0 {
                let k = Swift.min(skipping, n - i)
                skipping -= k
                i += k
                continue
            }
            guard let length = expected else {
                header.append(bytes[i])
                i += 1
                if header.count == prefixSize { beginFrame(into: &events) }
                continue
            }
            let k = Swift.min(length - payload.count, n - i)
            payload.append(contentsOf: bytes[i..<(i + k)])
            i += k
            if payload.count == length {
                events.append(.frame(payload))
                payload.removeAll(keepingCapacity: payload.capacity <= 64 << 10)
                expected = nil
            }
        }
        return events
    }

    /// The prefix is complete: start reading (or skipping) the frame it announces.
    private mutating func beginFrame(into events: inout [FramerEvent]) {
        var length: UInt64 = 0
        for k in 0..<prefixSize {
            let b = UInt64(endianness == .big ? header[k] : header[prefixSize - 1 - k])
            length = length << 8 | b
        }
        header.removeAll(keepingCapacity: true)
        if length > UInt64(maxFrameSize) {
            events.append(.dropped(.frameTooLarge(limit: maxFrameSize, size: Int(length))))
            skipping = Int(length)
        } else if length == 0 {
            events.append(.frame([]))
        } else {
            expected = Int(length)
            payload.reserveCapacity(Swift.min(Int(length), 64 << 10))
        }
    }

    public func encode(_ payload: [UInt8]) throws(FramingError) -> [UInt8] {
        let maxByPrefix = prefixSize == 4 ? Int(UInt32.max) : (1 << (8 * prefixSize)) - 1
        let limit = Swift.min(maxFrameSize, maxByPrefix)
        guard payload.count <= limit else { throw .payloadTooLarge(limit: limit, size: payload.count) }
        var out: [UInt8] = []
        out.reserveCapacity(prefixSize + payload.count)
        let length = UInt64(payload.count)
        for k in 0..<prefixSize {
            let shift = endianness == .big ? 8 * (prefixSize - 1 - k) : 8 * k
            out.append(UInt8(truncatingIfNeeded: length >> UInt64(shift)))
        }
        out.append(contentsOf: payload)
        return out
    }

    public mutating func reset() {
        header.removeAll()
        expected = nil
        payload.removeAll()
        skipping = 0
    }
}
