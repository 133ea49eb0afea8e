import AccessoryTestSupport
import ControlProtocol
import SystemCalls
import Testing

@testable import TrafficTrace

@Suite("the trace writer: its own thread, a bounded buffer, drops marked")
struct TraceWriterTests {
    static func append(_ writer: TraceWriter, _ text: String, at time: Int64 = 1_700_000_000_000_000) {
        Array(text.utf8).withUnsafeBufferPointer {
            writer.append(direction: .tx, timestampMicroseconds: time, client: 1, request: .int(2), bytes: $0)
        }
    }

    @Test("records come out in order, formatted, and close writes what is queued")
    func inOrder() {
        let sink = RecordingSink()
        let writer = TraceWriter(device: "d", layout: .text, sink: sink) { _ in }
        for index in 0..<500 { Self.append(writer, "line \(index)") }
        writer.close()
        let lines = sink.lines
        #expect(lines.count == 500)
        #expect(lines.enumerated().allSatisfy { $0.element.hasSuffix("tx client 1 request 2: line \($0.offset)") })
        #expect(sink.state.value.closed)
        #expect(writer.statistics.tracedBytes == Int64((0..<500).map { "line \($0)".utf8.count }.reduce(0, +)))
        #expect(writer.statistics.droppedBytes == 0)
    }

    @Test("a stalled sink never holds up append: what does not fit is dropped, counted and marked where it was")
    func stalledSinkDropsAndMarks() {
        let sink = RecordingSink()
        sink.state.mutate { $0.stallNextWrite = true }
        let capacity = 4_096
        let writer = TraceWriter(device: "d", layout: .text, sink: sink, capacity: capacity) { _ in }
        Self.append(writer, "first")
        // The writer took "first" and is stuck writing it.
        #expect(Wait.until(seconds: 10) { sink.state.value.stalled })
        let payload = String(repeating: "x", count: 100)
        // Appends run on another thread: if one blocked, this test fails instead of hanging.
        let appended = Shared(0)
        let producer = TestThread {
            for _ in 0..<100 {
                Self.append(writer, payload)
                appended.mutate { $0 += 1 }
            }
        }
        #expect(Wait.until(seconds: 10) { appended.value == 100 }, "append waited for the stalled sink")
        let dropped = writer.statistics.droppedBytes
        // 4096 bytes hold about 30 of these records (a 24-byte head, the id, the bytes): most are dropped.
        #expect(dropped > 0 && dropped % 100 == 0 && dropped < 100 * 100)
        let kept = 100 - Int(dropped / 100)
        sink.state.mutate { $0.stalled = false }
        producer.join()
        Self.append(writer, "after", at: 1_700_000_001_000_000)
        writer.close()
        let lines = sink.lines
        #expect(lines.count == 1 + kept + 1 + 1)
        #expect(lines.first?.hasSuffix(": first") == true)
        #expect(lines[1...kept].allSatisfy { $0.hasSuffix(": " + payload) })
        #expect(lines[kept + 1].hasSuffix("Z … \(dropped) bytes dropped …"))
        #expect(lines.last == "2023-11-14T22:13:21.000000Z tx client 1 request 2: after")
        #expect(writer.statistics.droppedBytes == dropped)
    }

    @Test("finish returns at once on a stalled disk; awaitFinishing waits for it, bounded, and later succeeds")
    func finishDoesNotWaitAndAwaitFinishingIsBounded() {
        let sink = RecordingSink()
        sink.state.mutate { $0.stallNextWrite = true }
        let writer = TraceWriter(device: "d", layout: .text, sink: sink) { _ in }
        Self.append(writer, "first")
        #expect(Wait.until(seconds: 10) { sink.state.value.stalled })
        Self.append(writer, "second")
        let started = MonotonicClock.nowNanoseconds()
        writer.finish()  // What the device loop calls: it must not wait for the stuck sink.
        #expect(MonotonicClock.nowNanoseconds() - started < 1_000_000_000, "finish waited for the disk")
        #expect(sink.state.value.stalled && !sink.state.value.closed)
        #expect(!TraceWriter.awaitFinishing(within: .milliseconds(100)), "the writer is stuck in the sink")
        // The disk comes back: the writer writes what was queued and closes the sink by itself.
        sink.state.mutate { $0.stalled = false }
        #expect(Wait.until(seconds: 10) { sink.state.value.closed })
        #expect(sink.lines.map { $0.hasSuffix(": first") || $0.hasSuffix(": second") } == [true, true])
    }

    @Test("awaitFinishing waits for a finishing writer that is not stuck")
    func awaitFinishingWaitsForTheWriter() {
        let sink = RecordingSink()
        let writer = TraceWriter(device: "d", layout: .text, sink: sink) { _ in }
        for index in 0..<50 { Self.append(writer, "line \(index)") }
        writer.finish()
        #expect(TraceWriter.awaitFinishing(within: .seconds(10)))
        #expect(sink.state.value.closed)
        #expect(sink.lines.count == 50)
    }

    @Test("writers that have ended are not kept: the list of finishing writers does not grow with each reload")
    func endedWritersAreForgotten() {
        // What a daemon reloaded 20 times does: each reload finishes a trace, which ends at once.
        for index in 0..<20 {
            let sink = RecordingSink()
            let writer = TraceWriter(device: "d", layout: .text, sink: sink) { _ in }
            Self.append(writer, "reload \(index)")
            writer.finish()
            #expect(Wait.until(seconds: 10) { sink.state.value.closed })
        }
        // A writer's thread ends just after it closes its sink: the next finish joins and drops
        // every one that has ended (kept, they would number 21 or more here).
        #expect(
            Wait.until(seconds: 10) {
                let writer = TraceWriter(device: "d", layout: .text, sink: RecordingSink()) { _ in }
                writer.finish()
                return TraceWriter.finishingCount <= 2
            }
        )
        #expect(TraceWriter.awaitFinishing(within: .seconds(10)))
        #expect(TraceWriter.finishingCount == 0)
    }

    @Test("bytes dropped at the end are still marked when the writer closes")
    func dropsAtClose() {
        let sink = RecordingSink()
        sink.state.mutate { $0.stallNextWrite = true }
        let writer = TraceWriter(device: "d", layout: .jsonl, sink: sink, capacity: 1_024) { _ in }
        Self.append(writer, "first")
        #expect(Wait.until(seconds: 10) { sink.state.value.stalled })
        for _ in 0..<20 { Self.append(writer, String(repeating: "y", count: 200)) }
        let dropped = writer.statistics.droppedBytes
        #expect(dropped > 0)
        sink.state.mutate { $0.stalled = false }
        writer.close()
        let last = sink.lines.last ?? ""
        #expect(last.contains("\"dropped_bytes\":\(dropped)}"))
    }

    @Test("a failing sink (disk full): the batch is counted as dropped, marked before the next record, reported once")
    func failingSink() {
        let sink = RecordingSink()
        sink.state.mutate { $0.failNextWrites = 2 }
        let reports = Shared<[String]>([])
        let writer = TraceWriter(device: "d", layout: .text, sink: sink) { message in
            reports.mutate { $0.append(message) }
        }
        Self.append(writer, "lost")
        #expect(Wait.until(seconds: 10) { writer.statistics.droppedBytes == 4 })
        Self.append(writer, "lost too")
        #expect(Wait.until(seconds: 10) { writer.statistics.droppedBytes == 12 })
        Self.append(writer, "kept")
        writer.close()
        #expect(sink.lines.count == 2)
        #expect(sink.lines.first?.hasSuffix("Z … 12 bytes dropped …") == true)
        #expect(sink.lines.last?.hasSuffix(": kept") == true)
        #expect(reports.value == ["no space left"], "one report for the same failure twice")
        #expect(writer.statistics.lastError == "no space left")
    }
}
