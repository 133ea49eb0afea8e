import IOLoop
import SystemCalls

/// Lines: inbound frames end with `delimiter` (e.g. `\r\n`), outbound payloads get `terminator`
/// appended (e.g. `\r`, as AT modems want). The two are set separately.
///
/// A line longer than ``maxFrameSize`` is reported once and skipped up to its delimiter; the
/// buffer never holds more than the limit plus the delimiter. With `dropsEmptyLines`, the empty
/// lines of `\r\nOK\r\n`-style replies are not reported.
///
/// Any thread (a value; one owner at a time).
public struct LineFramer: Framer {
    public let delimiter: [UInt8]
    public let terminator: [UInt8]
    public let maxFrameSize: Int
    public let dropsEmptyLines: Bool

    private var buffer: [UInt8] = []
    /// Where the next delimiter search starts (earlier bytes are known not to begin one).
    private var scanFrom = 0
    /// Skipping an oversize line until its delimiter.
    private var discarding = false

    public init(
        delimiter: [UInt8] = Array("\r\n".utf8),
        terminator: [UInt8] = Array("\r".utf8),
        maxFrameSize: Int = 4096,
        dropsEmptyLines: Bool = false
    ) {
        precondition(!delimiter.isEmpty, "a line delimiter cannot be empty")
        precondition(maxFrameSize > 0)
        self.delimiter = delimiter
        self.terminator = terminator
        self.maxFrameSize = maxFrameSize
        self.dropsEmptyLines = dropsEmptyLines
    }

    public mutating func ingest(_ bytes: [UInt8], at now: LoopInstant) -> [FramerEvent] {
        var events: [FramerEvent] = []
        bytes.withUnsafeBytes { ingest($0, at: now, into: &events) }
        return events
    }

    public mutating func ingest(_ bytes: UnsafeRawBufferPointer, at now: LoopInstant, into events: inout [FramerEvent])
    {
        buffer.append(contentsOf: bytes)
        var start = 0  // beginning of the current line in `buffer`
        let d = delimiter.count
        var i = Swift.max(scanFrom, start)
        while let at = delimiterIndex(from: i) {
            if discarding {
                discarding = false  // the end of a line already reported as too large
            } else if at - start > maxFrameSize {
                events.append(.dropped(.frameTooLarge(limit: maxFrameSize, size: nil)))
            } else if at - start > 0 || !dropsEmptyLines {
                events.append(.frame(Array(buffer[start..<at])))
            }
            start = at + d
            i = start
        }
        // No delimiter starts before the last d-1 bytes.
        i = Swift.max(i, buffer.count - d + 1)
        // Keep the unfinished line; its bytes before `i` are known to start no delimiter. (Most
        // reads end with a line: emptying keeps the storage, and costs less than a removal.)
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
        } else {
            buffer.removeFirst(start)
        }
        scanFrom = i - start
        // The last d-1 bytes may be the start of a delimiter; everything before them is content.
        if !discarding && buffer.count - (d - 1) > maxFrameSize {
            events.append(.dropped(.frameTooLarge(limit: maxFrameSize, size: nil)))
            discarding = true
        }
        if discarding {
            // Skip to the delimiter, keeping only what could be its beginning.
            buffer.removeFirst(buffer.count - Swift.min(buffer.count, d - 1))
            scanFrom = 0
        }
    }

    /// Where the next delimiter in `buffer` begins, at or after `from`; nil if none is complete.
    /// A plain scan over the buffer's storage: this runs over every received byte.
    private func delimiterIndex(from: Int) -> Int? {
        let d = delimiter.count
        let first = delimiter[0]
        return buffer.withUnsafeBufferPointer { bytes -> Int? in
            var i = from
            let lastStart = bytes.count - d  // the last index a whole delimiter can start at
            while let at = ByteSearch.firstIndex(of: first, in: bytes, from: i, to: lastStart + 1) {
                var k = 1
                while k < d && bytes[at + k] == delimiter[k] { k += 1 }
                if k == d { return at }
                i = at + 1
            }
            return nil
        }
    }

    /// The payload followed by the terminator.
    public func encode(_ payload: [UInt8]) throws(FramingError) -> [UInt8] {
        guard payload.count <= maxFrameSize else { throw .payloadTooLarge(limit: maxFrameSize, size: payload.count) }
        return payload + terminator
    }

    public func encode(_ payload: [UInt8], appendingTo output: inout [UInt8]) throws(FramingError) {
        guard payload.count <= maxFrameSize else { throw .payloadTooLarge(limit: maxFrameSize, size: payload.count) }
        output.append(contentsOf: payload)
        output.append(contentsOf: terminator)
    }

    public mutating func reset() {
        buffer.removeAll()
        scanFrom = 0
        discarding = false
    }
}
