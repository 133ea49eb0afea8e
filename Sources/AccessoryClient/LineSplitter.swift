/// Cuts a byte stream into lines at `\n` (a `\r` before it is dropped too).
///
/// Threading: a value; its owner's thread.
struct LineSplitter {
    /// The longest line accepted; a longer one is a protocol error.
    let limit: Int
    private var buffer: [UInt8] = []
    /// Where the search for the next `\n` resumes (everything before it has none).
    private var scanned = 0

    init(limit: Int) { self.limit = limit }

    /// Appends `chunk` and returns the lines it completes, or nil when an unfinished line has
    /// grown past ``limit``.
    mutating func append(_ chunk: UnsafeRawBufferPointer) -> [[UInt8]]? {
        buffer.append(contentsOf: chunk)
        var lines: [[UInt8]] = []
        var start = 0
        var index = scanned
        while index < buffer.count {
            if buffer[index] == UInt8(ascii: "\n") {
                var end = index
                if end > start && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                lines.append(Array(buffer[start..<end]))
                start = index + 1
            }
            index += 1
        }
        if start > 0 { buffer.removeSubrange(0..<start) }
        scanned = buffer.count
        return buffer.count > limit ? nil : lines
    }
}
