/// What waits to be written to a view's pty master: whole chunks (a re-framed frame, a raw read)
/// up to `limit` bytes. When a program does not read, the oldest whole chunks are dropped and
/// counted, so the accessory and the other clients never wait for it, a slow reader gets the
/// newest data, and it never sees half a frame (the chunk being written is never cut). Storage is
/// taken only while something waits: an idle view holds none.
///
/// Threading: a value. Device loop only (the view's).
struct ViewOutputBuffer {
    let limit: Int
    /// The waiting chunks are `chunks[start...]`; the ones before were written (removed in
    /// batches, so that writing a chunk does not shift the rest).
    private var chunks: [[UInt8]] = []
    private var start = 0
    /// Bytes of the first chunk already written.
    private var headOffset = 0
    /// Bytes waiting (the first chunk's written part excluded).
    private(set) var count = 0
    private(set) var droppedBytes: UInt64 = 0
    private(set) var droppedChunks: UInt64 = 0

    init(limit: Int) {
        self.limit = limit
    }

    var isEmpty: Bool { count == 0 }

    /// Queues `bytes`, dropping the oldest chunks not yet begun while more than `limit` waits. A
    /// chunk larger than the limit on its own is cut to its last `limit` bytes.
    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        var chunk = bytes
        if chunk.count > limit {
            droppedBytes += UInt64(chunk.count - limit)
            droppedChunks += 1
            chunk.removeFirst(chunk.count - limit)
        }
        chunks.append(chunk)
        count += chunk.count
        guard count > limit else { return }
        // The first chunk, once begun, stays: cutting it would hand the reader half a frame.
        let firstDroppable = start + (headOffset > 0 ? 1 : 0)
        var end = firstDroppable
        while count > limit, end < chunks.count - 1 {
            count -= chunks[end].count
            droppedBytes += UInt64(chunks[end].count)
            droppedChunks += 1
            end += 1
        }
        chunks.removeSubrange(firstDroppable..<end)
    }

    /// Writes as much as `write` takes, chunk by chunk; `write` returns how many bytes it took
    /// (0: nothing more now). Returns the bytes written.
    @discardableResult
    mutating func drain(_ write: (ArraySlice<UInt8>) -> Int) -> Int {
        var total = 0
        while start < chunks.count {
            let n = write(chunks[start][headOffset...])
            guard n > 0 else { break }
            total += n
            count -= n
            headOffset += n
            if headOffset == chunks[start].count {
                start += 1
                headOffset = 0
            }
        }
        if start == chunks.count {
            chunks = []  // Gives the storage back: an idle view holds none.
            start = 0
        } else if start >= 64 {
            chunks.removeFirst(start)
            start = 0
        }
        return total
    }

    /// Forgets everything waiting (no program to read it); returns how many bytes that was.
    @discardableResult
    mutating func discardAll() -> Int {
        let n = count
        chunks = []
        start = 0
        headOffset = 0
        count = 0
        return n
    }
}
