import SystemCalls

/// Lines waiting to be written to one client, kept as the arrays they were encoded into (no
/// copying), with a write position in the first one.
///
/// Threading: control loop only (owned by one connection).
struct OutboundQueue {
    private var lines: [[UInt8]] = []
    private var head = 0
    private var offset = 0
    /// Bytes not yet written.
    private(set) var byteCount = 0

    var isEmpty: Bool { head == lines.count }

    mutating func append(_ line: [UInt8]) {
        guard !line.isEmpty else { return }
        lines.append(line)
        byteCount += line.count
    }

    /// Writes queued bytes with `write` until the queue is empty or `write` would block. Returns
    /// the bytes written; a write error is thrown after the bytes before it were accounted.
    mutating func drain(
        _ write: (UnsafeRawBufferPointer) throws(SyscallError) -> IOResult<Int>
    ) throws(SyscallError) -> Int {
        var written = 0
        while head < lines.count {
            let start = offset
            let result: Result<IOResult<Int>, SyscallError> = lines[head].withUnsafeBytes { bytes in
                do throws(SyscallError) {
                    return .success(try write(UnsafeRawBufferPointer(rebasing: bytes[start...])))
                } catch {
                    return .failure(error)
                }
            }
            switch try result.get() {
            case .wouldBlock:
                return written
            case .processed(let n):
                written += n
                consume(n)
            }
        }
        return written
    }

    private mutating func consume(_ n: Int) {
        byteCount -= n
        offset += n
        if offset == lines[head].count {
            offset = 0
            head += 1
            if head == lines.count {
                lines.emptyKeepingCapacity()
                head = 0
            } else if head >= 32 && head * 2 >= lines.count {
                lines.removeFirst(head)
                head = 0
            }
        }
    }

    mutating func removeAll() {
        lines = []
        head = 0
        offset = 0
        byteCount = 0
    }
}
