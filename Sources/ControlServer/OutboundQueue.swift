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

    /// Queues `line` and writes what is queued, as ``append(_:)`` then ``drain(_:)`` would; with
    /// nothing queued before it, `line` is written straight from the caller's array and only
    /// what `write` did not take is queued (usually nothing: a reply leaves without touching
    /// the queue's storage). Returns the bytes written; a write error is thrown with `line`
    /// queued, as after ``append(_:)``.
    mutating func appendAndDrain(
        _ line: some OutgoingLine,
        _ write: (UnsafeRawBufferPointer) throws(SyscallError) -> IOResult<Int>
    ) throws(SyscallError) -> Int {
        guard isEmpty, line.count > 0 else {
            append(line.kept())
            return try drain(write)
        }
        let result: Result<IOResult<Int>, SyscallError> = line.withBytes { bytes in
            do throws(SyscallError) {
                return .success(try write(bytes))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .failure(let error):
            append(line.kept())
            throw error
        case .success(.wouldBlock):
            append(line.kept())
            return 0
        case .success(.processed(let n)):
            if n < line.count {
                append(line.kept())
                consume(n)
            }
            return n
        }
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

/// A line on its way to a client: an array, which the queue keeps as it is when the line must
/// wait, or bytes lent for the call (a reply encoded on the stack), copied only then.
///
/// Threading: a value, used by the thread that sends it.
protocol OutgoingLine {
    var count: Int { get }
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R
    /// The line as an array the queue may keep.
    func kept() -> [UInt8]
}

extension Array: OutgoingLine where Element == UInt8 {
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R { withUnsafeBytes(body) }
    func kept() -> [UInt8] { self }
}

extension UnsafeRawBufferPointer: OutgoingLine {
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R { body(self) }
    func kept() -> [UInt8] { [UInt8](self) }
}
