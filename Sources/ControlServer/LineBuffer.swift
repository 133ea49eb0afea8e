import SystemCalls

/// Splits a client's byte stream into request lines: `\n`-terminated, a `\r` before the `\n`
/// tolerated, blank lines skipped, each at most `maxLineBytes` long (without terminator).
///
/// Complete lines that arrive in one read are handed out in place (no copy); only a line split
/// across reads is gathered, and that buffer never grows past the limit.
///
/// Threading: control loop only (owned by one connection).
struct LineBuffer {
    enum Outcome: Equatable {
        /// Every byte was used; a partial line may be kept for the next read.
        case needMore
        /// `onLine` asked to stop; the bytes from `unusedFrom` on were not looked at (the caller
        /// may keep them: after an `attach` they are the first raw bytes).
        case stopped(unusedFrom: Int)
        /// A line is longer than the limit; the buffer was emptied.
        case lineTooLong
    }

    let maxLineBytes: Int
    private var partial: [UInt8] = []

    init(maxLineBytes: Int) { self.maxLineBytes = maxLineBytes }

    /// Bytes of an unfinished line held from earlier reads.
    var bufferedCount: Int { partial.count }

    /// Feeds one read's bytes. `onLine` gets each complete line (valid only during the call) and
    /// returns whether to go on.
    mutating func feed(
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ onLine: (UnsafeBufferPointer<UInt8>) -> Bool
    ) -> Outcome {
        var start = 0
        // `+ 1`: room for the `\r` of a line of exactly the limit.
        let cap = maxLineBytes + 1
        while start < bytes.count {
            guard let newline = ByteSearch.firstIndex(of: UInt8(ascii: "\n"), in: bytes, from: start, to: bytes.count)
            else {
                guard partial.count + (bytes.count - start) <= cap else { return tooLong() }
                partial.append(contentsOf: bytes[start...])
                return .needMore
            }
            let verdict: Verdict
            if partial.isEmpty {
                guard newline - start <= cap else { return tooLong() }
                verdict = deliver(UnsafeBufferPointer(rebasing: bytes[start..<newline]), onLine)
            } else {
                guard partial.count + (newline - start) <= cap else { return tooLong() }
                partial.append(contentsOf: bytes[start..<newline])
                var line: [UInt8] = []
                swap(&line, &partial)
                verdict = line.withUnsafeBufferPointer { deliver($0, onLine) }
                // Keep the capacity for the next split line.
                line.removeAll(keepingCapacity: true)
                if partial.isEmpty { swap(&line, &partial) }
            }
            start = newline + 1
            switch verdict {
            case .goOn: continue
            case .stop: return .stopped(unusedFrom: newline + 1)
            case .tooLong: return tooLong()
            }
        }
        return .needMore
    }

    /// Forgets any partial line.
    mutating func reset() { partial = [] }

    private mutating func tooLong() -> Outcome {
        partial = []
        return .lineTooLong
    }

    private enum Verdict {
        case goOn, stop, tooLong
    }

    /// Hands out one line without its `\r`, unless it is blank (skipped) or too long.
    private func deliver(_ line: UnsafeBufferPointer<UInt8>, _ onLine: (UnsafeBufferPointer<UInt8>) -> Bool) -> Verdict
    {
        var count = line.count
        if count > 0 && line[count - 1] == UInt8(ascii: "\r") { count -= 1 }
        if count > maxLineBytes { return .tooLong }
        if count == 0 { return .goOn }
        return onLine(UnsafeBufferPointer(rebasing: line[..<count])) ? .goOn : .stop
    }
}
