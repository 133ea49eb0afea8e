import SystemCalls
import Testing

@testable import ControlServer

@Suite("Line splitting and the outbound queue")
struct BufferTests {
    /// Feeds `chunks` and collects lines (as strings) and the outcomes.
    private func split(_ chunks: [String], limit: Int = 16) -> (lines: [String], outcomes: [LineBuffer.Outcome]) {
        var buffer = LineBuffer(maxLineBytes: limit)
        var lines: [String] = []
        var outcomes: [LineBuffer.Outcome] = []
        for chunk in chunks {
            let bytes = Array(chunk.utf8)
            outcomes.append(
                bytes.withUnsafeBufferPointer { pointer in
                    buffer.feed(pointer) { line in
                        lines.append(String(decoding: line, as: UTF8.self))
                        return true
                    }
                }
            )
        }
        return (lines, outcomes)
    }

    @Test("lines split across reads, CRLF, blank lines")
    func splitting() {
        #expect(split(["ab", "c\nde", "f\r", "\n\n\r\ng\n"]).lines == ["abc", "def", "g"])
        #expect(split(["\r\r\n"]).lines == ["\r"])
        #expect(split(["a\nb"]).outcomes == [.needMore])
    }

    @Test("the length limit, in one read or across reads, with and without CR")
    func limit() {
        let exact = String(repeating: "x", count: 16)
        #expect(split([exact + "\n"]).lines == [exact])
        #expect(split([exact + "\r\n"]).lines == [exact])
        #expect(split([String(exact.prefix(8)), String(exact.suffix(8)) + "\r\n"]).lines == [exact])
        #expect(split([exact + "y\n"]).outcomes == [.lineTooLong])
        #expect(split([exact + "yz"]).outcomes == [.lineTooLong])
        #expect(split([exact, "yz"]).outcomes == [.needMore, .lineTooLong])
        #expect(split([exact, "y", "\n"]).outcomes == [.needMore, .needMore, .lineTooLong])
    }

    @Test("stopping says where the unused bytes begin")
    func stopping() {
        var buffer = LineBuffer(maxLineBytes: 100)
        var seen = 0
        let outcome = Array("a\nb\nc".utf8).withUnsafeBufferPointer { pointer in
            buffer.feed(pointer) { _ in
                seen += 1
                return false
            }
        }
        #expect(outcome == .stopped(unusedFrom: 2) && seen == 1 && buffer.bufferedCount == 0)
    }

    @Test("the outbound queue writes partially, resumes, and accounts every byte")
    func outboundQueue() throws {
        var queue = OutboundQueue()
        for i in 0..<100 { queue.append(Array("line \(i)\n".utf8)) }
        let total = queue.byteCount
        var sink: [UInt8] = []
        var budget = 0
        var rounds = 0
        while !queue.isEmpty && rounds < 10_000 {
            budget = 7
            let written = try queue.drain { bytes throws(SyscallError) in
                guard budget > 0 else { return .wouldBlock }
                let n = min(budget, bytes.count, 3)
                budget -= n
                sink += bytes.prefix(n)
                return .processed(n)
            }
            #expect(written <= 7)
            rounds += 1
        }
        #expect(queue.isEmpty && queue.byteCount == 0)
        #expect(sink.count == total)
        #expect(String(decoding: sink, as: UTF8.self) == (0..<100).map { "line \($0)\n" }.joined())
    }

    @Test("a write error is thrown after the bytes before it are accounted")
    func outboundError() {
        var queue = OutboundQueue()
        queue.append(Array("abc".utf8))
        queue.append(Array("def".utf8))
        var calls = 0
        #expect(throws: SyscallError(.send, .brokenPipe)) {
            _ = try queue.drain { bytes throws(SyscallError) in
                calls += 1
                if calls == 1 { return .processed(bytes.count) }
                throw SyscallError(.send, .brokenPipe)
            }
        }
        #expect(queue.byteCount == 3)
    }

    @Test("a line appended to an empty queue is written from its array; what the socket leaves is queued, in order")
    func appendAndDrain() throws {
        var sink: [UInt8] = []
        var budget = Int.max
        func write(_ bytes: UnsafeRawBufferPointer) throws(SyscallError) -> IOResult<Int> {
            guard budget > 0 else { return .wouldBlock }
            let n = min(budget, bytes.count)
            budget -= n
            sink += bytes.prefix(n)
            return .processed(n)
        }
        var queue = OutboundQueue()
        // All taken: nothing queued.
        let written1 = try queue.appendAndDrain(Array("one\n".utf8), write)
        #expect(written1 == 4)
        #expect(queue.isEmpty && queue.byteCount == 0)
        // Part taken: the rest queued from where the socket stopped.
        budget = 2
        let written2 = try queue.appendAndDrain(Array("two\n".utf8), write)
        #expect(written2 == 2)
        #expect(!queue.isEmpty && queue.byteCount == 2)
        // With something queued, a line waits behind it; the socket full, nothing is written.
        let written3 = try queue.appendAndDrain(Array("three\n".utf8), write)
        #expect(written3 == 0)
        #expect(queue.byteCount == 8)
        budget = .max
        let written4 = try queue.drain(write)
        #expect(written4 == 8)
        #expect(String(decoding: sink, as: UTF8.self) == "one\ntwo\nthree\n")
        #expect(queue.isEmpty && queue.byteCount == 0)
        // The socket full at once: the whole line queued.
        budget = 0
        let written5 = try queue.appendAndDrain(Array("four\n".utf8), write)
        #expect(written5 == 0)
        #expect(queue.byteCount == 5)
    }

    @Test("a line whose direct write fails is queued, and the error thrown")
    func appendAndDrainError() {
        var queue = OutboundQueue()
        #expect(throws: SyscallError(.send, .brokenPipe)) {
            _ = try queue.appendAndDrain(Array("abc".utf8)) { _ throws(SyscallError) in
                throw SyscallError(.send, .brokenPipe)
            }
        }
        #expect(queue.byteCount == 3)
    }
}
