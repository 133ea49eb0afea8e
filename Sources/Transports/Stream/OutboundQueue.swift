/// The bytes a channel has accepted but not yet written: whole arrays in order, and how far into
/// the first one the writes have got. Arrays are kept as given (no copying on enqueue).
///
/// Loop thread only (owned by one ``StreamChannel``).
struct OutboundQueue {
    private var chunks: [[UInt8]] = []
    private var headIndex = 0
    private var headOffset = 0
    /// Bytes waiting in total.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Adds `bytes[offset...]` at the end.
    mutating func append(_ bytes: [UInt8], from offset: Int = 0) {
        precondition(offset >= 0 && offset <= bytes.count)
        guard offset < bytes.count else { return }
        if isEmpty {
            chunks.removeAll(keepingCapacity: true)
            headIndex = 0
            headOffset = offset
        } else {
            precondition(offset == 0, "only the first chunk may start part-way")
        }
        chunks.append(bytes)
        count += bytes.count - offset
    }

    /// Calls `body` with the unwritten part of the first chunk; nil when empty.
    func withHead<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R? {
        guard headIndex < chunks.count else { return nil }
        let offset = headOffset
        return chunks[headIndex].withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
    }

    /// Marks `n` bytes of the first chunk as written.
    mutating func consume(_ n: Int) {
        precondition(headIndex < chunks.count && n >= 0)
        headOffset += n
        count -= n
        let headCount = chunks[headIndex].count
        precondition(headOffset <= headCount)
        if headOffset == headCount {
            // Release the array now, so memory follows the queue, not its history.
            chunks[headIndex] = []
            headIndex += 1
            headOffset = 0
            if headIndex == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                headIndex = 0
            } else if headIndex >= 64 && headIndex * 2 >= chunks.count {
                chunks.removeFirst(headIndex)
                headIndex = 0
            }
        }
    }

    /// Drops everything; returns how many bytes were dropped.
    @discardableResult
    mutating func removeAll() -> Int {
        let dropped = count
        chunks.removeAll()
        headIndex = 0
        headOffset = 0
        count = 0
        return dropped
    }
}
