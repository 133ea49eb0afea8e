/// `trace:` — a file that records every byte to and from the accessory (see docs/trace.md).
///
/// Threading: a value. Any thread.
public struct TraceSettings: Sendable, Equatable {
    /// How records are written.
    ///
    /// Threading: a value. Any thread.
    public enum Format: String, Sendable, CaseIterable {
        /// One line a record, non-printable bytes escaped (`\r`, `\n`, `\xNN`).
        case text
        /// A head line a record, then `hexdump -C` lines.
        case hexdump
        /// One JSON object a line (the `device.traffic` notification's params).
        case jsonl
    }

    /// Absolute path of the trace file (relative paths are refused: the daemon has no working
    /// folder worth naming, and the runtime folder is for its socket).
    public var file: String
    public var format: Format
    /// The file is rotated before it would grow past this.
    public var maxBytes: Int
    /// How many rotated files (`file.1` … `file.<keep>`) are kept.
    public var keep: Int

    public static let defaultMaxBytes = 10 << 20

    public init(file: String, format: Format = .text, maxBytes: Int = TraceSettings.defaultMaxBytes, keep: Int = 3) {
        self.file = file
        self.format = format
        self.maxBytes = maxBytes
        self.keep = keep
    }
}
