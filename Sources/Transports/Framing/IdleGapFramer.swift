import IOLoop

/// Raw frames delimited by silence: the bytes received until `gap` passes with nothing new are
/// one frame (Modbus RTU style devices, and devices with no framing at all).
///
/// Pure: time comes in as arguments. ``ingest(_:at:)`` records when bytes arrived,
/// ``idleDeadline`` says when the pending bytes complete, and ``flush(at:)`` completes them;
/// ``FrameReader`` arms a loop timer for the deadline. Bytes that arrive after the deadline
/// first complete the pending frame, even if the timer has not fired yet. A frame that grows
/// past ``maxFrameSize`` is reported once and skipped until the next silence.
/// Outbound payloads are sent unchanged.
///
/// Any thread (a value; one owner at a time).
public struct IdleGapFramer: Framer {
    public var actsOnSilence: Bool { true }
    public let gap: Duration
    public let maxFrameSize: Int

    private var buffer: [UInt8] = []
    private var discarding = false
    private var lastByteAt: LoopInstant?

    public init(gap: Duration, maxFrameSize: Int = 4096) {
        precondition(gap > .zero, "the idle gap must be positive")
        precondition(maxFrameSize > 0)
        self.gap = gap
        self.maxFrameSize = maxFrameSize
    }

    public var idleDeadline: LoopInstant? {
        guard !buffer.isEmpty || discarding, let last = lastByteAt else { return nil }
        return last + gap
    }

    public mutating func ingest(_ bytes: [UInt8], at now: LoopInstant) -> [FramerEvent] {
        var events = flush(at: now)
        guard !bytes.isEmpty else { return events }
        lastByteAt = now
        if discarding { return events }
        if buffer.count + bytes.count > maxFrameSize {
            events.append(.dropped(.frameTooLarge(limit: maxFrameSize, size: nil)))
            buffer.removeAll(keepingCapacity: true)
            discarding = true
        } else {
            buffer.append(contentsOf: bytes)
        }
        return events
    }

    public mutating func flush(at now: LoopInstant) -> [FramerEvent] {
        guard let deadline = idleDeadline, now >= deadline else { return [] }
        let events: [FramerEvent] = discarding ? [] : [.frame(buffer)]
        buffer.removeAll(keepingCapacity: buffer.capacity <= 64 << 10)
        discarding = false
        return events
    }

    public func encode(_ payload: [UInt8]) throws(FramingError) -> [UInt8] {
        guard payload.count <= maxFrameSize else { throw .payloadTooLarge(limit: maxFrameSize, size: payload.count) }
        return payload
    }

    public mutating func reset() {
        buffer.removeAll()
        discarding = false
        lastByteAt = nil
    }
}
