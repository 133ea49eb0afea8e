/// `framing:` — how the byte stream is cut into frames (and how frames are sent).
///
/// Threading: a value. Any thread.
public struct FramingSettings: Sendable, Equatable {
    public var format: FrameFormat
    /// Longest frame accepted; a longer one (or a longer length claim) is discarded.
    public var maxFrameBytes: Int

    public init(format: FrameFormat = .line(delimiter: [0x0A], terminator: [0x0A]), maxFrameBytes: Int = 8_192) {
        self.format = format
        self.maxFrameBytes = maxFrameBytes
    }
}

/// The framings the transports implement.
///
/// Threading: a value. Any thread.
public enum FrameFormat: Sendable, Equatable {
    /// Text lines: received bytes are split on `delimiter` (removed); `terminator` is appended
    /// to each frame sent.
    case line(delimiter: [UInt8], terminator: [UInt8])
    /// RFC 1055 SLIP.
    case slip
    /// Consistent Overhead Byte Stuffing, frames ended by a zero byte.
    case cobs
    /// A `width`-byte length (1, 2 or 4) in `endian` order, then that many bytes.
    case lengthPrefixed(width: Int, endian: Endian)
    /// A frame ends when the line has been quiet for `gapMs`.
    case idleGap(gapMs: Int)

    /// The `type:` name.
    public var typeName: String {
        switch self {
        case .line: "line"
        case .slip: "slip"
        case .cobs: "cobs"
        case .lengthPrefixed: "length_prefixed"
        case .idleGap: "idle_gap"
        }
    }

    /// Byte order of a length prefix.
    ///
    /// Threading: a value. Any thread.
    public enum Endian: String, Sendable, CaseIterable {
        case big
        case little
    }
}
