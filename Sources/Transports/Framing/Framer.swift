import IOLoop

/// What a framer found in the bytes it was given. Any thread (a value).
public enum FramerEvent: Sendable, Equatable {
    /// One complete frame, with the framing removed.
    case frame([UInt8])
    /// Bytes that did not make a frame were skipped (too large, badly encoded, cut short); the
    /// framer has resynchronised and goes on with the bytes after them.
    case dropped(FramingError)
}

/// Why bytes were skipped, or a payload could not be encoded. Any thread (a value).
public enum FramingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A frame longer than the limit. `size` is its length when known (a length prefix's claim).
    case frameTooLarge(limit: Int, size: Int?)
    /// Bytes that break the encoding (a bad SLIP escape, a bad COBS code).
    case invalidEncoding(String)
    /// A frame cut off by silence before it was complete (length-prefixed with an idle resync).
    case truncated(expected: Int, received: Int)
    /// A payload too large to send in one frame.
    case payloadTooLarge(limit: Int, size: Int)

    public var description: String {
        switch self {
        case .frameTooLarge(let limit, let size?):
            return "a \(size)-byte frame exceeds the \(limit)-byte limit and was skipped"
        case .frameTooLarge(let limit, nil):
            return "a frame exceeded the \(limit)-byte limit and was skipped"
        case .invalidEncoding(let what):
            return "badly encoded frame skipped: \(what)"
        case .truncated(let expected, let received):
            return "a frame was cut short (\(received) of \(expected) bytes) and was skipped"
        case .payloadTooLarge(let limit, let size):
            return "cannot send \(size) bytes in one frame: the limit is \(limit)"
        }
    }
}

/// Splits an inbound byte stream into frames and wraps outbound payloads: both directions of one
/// framing (line, SLIP, COBS, length-prefixed, idle gap).
///
/// Framers are pure values: no loop, no I/O. Time enters only as an argument, for the framers
/// whose frames end on silence (``idleDeadline`` and ``flush(at:)``); ``FrameReader`` drives them
/// from a loop. Every framer has a ``maxFrameSize``: past it the frame is skipped and reported as
/// ``FramerEvent/dropped(_:)``, memory stays bounded by the limit, and decoding resynchronises.
///
/// Any thread (a value; one owner at a time).
public protocol Framer: Sendable {
    /// The largest payload decoded or encoded.
    var maxFrameSize: Int { get }

    /// Feeds received bytes (arriving at `now`); returns what they completed, in order.
    mutating func ingest(_ bytes: [UInt8], at now: LoopInstant) -> [FramerEvent]

    /// ``ingest(_:at:)`` for bytes lent for the call (a read straight from the channel's
    /// buffer), appending to an array the caller keeps, so that a read allocates neither a chunk
    /// nor an event array. The default copies the bytes and calls ``ingest(_:at:)``; the line
    /// framer, the common one, does the work here.
    mutating func ingest(_ bytes: UnsafeRawBufferPointer, at now: LoopInstant, into events: inout [FramerEvent])

    /// When the pending bytes become a frame (or are dropped) if nothing else arrives; nil when
    /// silence ends nothing. The driver calls ``flush(at:)`` once that time has come.
    var idleDeadline: LoopInstant? { get }

    /// Whether silence can ever matter to this framer (``idleDeadline`` is ever set): the driver
    /// keeps no timer, and asks for no deadline after each read, for a framer where it cannot.
    /// False unless the framer says otherwise.
    var actsOnSilence: Bool { get }

    /// Completes what silence completes at `now` (nothing before ``idleDeadline``).
    mutating func flush(at now: LoopInstant) -> [FramerEvent]

    /// Wraps one payload for sending.
    func encode(_ payload: [UInt8]) throws(FramingError) -> [UInt8]

    /// ``encode(_:)`` appended to `output`, a buffer the caller keeps, so that sending a frame
    /// allocates nothing. The default appends what ``encode(_:)`` returns; the line framer, the
    /// common one, appends payload and terminator in place.
    func encode(_ payload: [UInt8], appendingTo output: inout [UInt8]) throws(FramingError)

    /// Forgets any partial frame (after a reopen or a resync).
    mutating func reset()
}

extension Framer {
    public var idleDeadline: LoopInstant? { nil }
    public var actsOnSilence: Bool { false }

    public mutating func ingest(_ bytes: UnsafeRawBufferPointer, at now: LoopInstant, into events: inout [FramerEvent])
    {
        events.append(contentsOf: ingest([UInt8](bytes), at: now))
    }
    public mutating func flush(at now: LoopInstant) -> [FramerEvent] { [] }

    public func encode(_ payload: [UInt8], appendingTo output: inout [UInt8]) throws(FramingError) {
        output.append(contentsOf: try encode(payload))
    }

    /// Feeds bytes to a framer that does not care about time.
    public mutating func ingest(_ bytes: [UInt8]) -> [FramerEvent] {
        ingest(bytes, at: LoopInstant(nanoseconds: 0))
    }
}
