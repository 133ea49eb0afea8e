import Testing

@testable import AccessoryCore

@Suite("pty view output buffer")
struct ViewOutputBufferTests {
    /// Drains everything `room` bytes at a time; returns what was written.
    func drain(_ buffer: inout ViewOutputBuffer, room: Int = .max) -> [UInt8] {
        var out: [UInt8] = []
        buffer.drain { slice in
            let n = min(room, slice.count)
            out += slice.prefix(n)
            return n
        }
        return out
    }

    @Test("what fits is written in order, and an emptied buffer holds nothing")
    func inOrder() {
        var b = ViewOutputBuffer(limit: 100)
        b.append(Array("$GPGGA\r\n".utf8))
        b.append(Array("$GPRMC\r\n".utf8))
        #expect(b.count == 16)
        #expect(drain(&b) == Array("$GPGGA\r\n$GPRMC\r\n".utf8))
        #expect(b.isEmpty && b.droppedBytes == 0 && b.droppedChunks == 0)
    }

    @Test("a reader that does not read loses the oldest whole chunks, counted; the newest stay")
    func dropsOldest() {
        var b = ViewOutputBuffer(limit: 30)
        for i in 0..<10 { b.append(Array("frame-\(i)\r\n".utf8)) }  // 9 bytes each
        #expect(b.count <= 30)
        #expect(b.droppedChunks == 7 && b.droppedBytes == 63)
        #expect(drain(&b) == Array("frame-7\r\nframe-8\r\nframe-9\r\n".utf8))
    }

    @Test("a chunk half written is never cut: the reader gets whole frames")
    func begunChunkStays() {
        var b = ViewOutputBuffer(limit: 20)
        b.append(Array("0123456789".utf8))
        var room = 4  // The kernel takes 4 bytes, then would block.
        _ = b.drain { slice in
            let n = min(room, slice.count)
            room -= n
            return n
        }
        b.append(Array("abcdefghij".utf8))
        b.append(Array("ABCDEFGHIJ".utf8))
        // Over the limit: "abcdefghij" goes, the begun chunk's rest stays.
        #expect(b.droppedChunks == 1)
        #expect(drain(&b) == Array("456789ABCDEFGHIJ".utf8))
    }

    @Test("a chunk larger than the limit keeps its last bytes")
    func oversizeChunk() {
        var b = ViewOutputBuffer(limit: 4)
        b.append(Array("123456".utf8))
        #expect(b.droppedBytes == 2 && b.droppedChunks == 1)
        #expect(drain(&b) == Array("3456".utf8))
    }

    @Test("writing in small pieces gives the same bytes; discardAll forgets and reports")
    func partialWritesAndDiscard() {
        var b = ViewOutputBuffer(limit: 1000)
        for i in 0..<100 { b.append([UInt8(i)]) }
        #expect(drain(&b, room: 3) == (0..<100).map(UInt8.init))
        b.append([1, 2, 3])
        #expect(b.discardAll() == 3 && b.isEmpty)
    }
}
