import AccessoryTestSupport
import Synchronization
import Testing

@testable import IOLoop

/// The perform queue alone, without a loop: its ordering rule and its close, step by step. The
/// test's thread plays the loop (`onLoop: true`); other threads are joined before the next step,
/// so each step happens after the one before.
@Suite("perform queue")
struct PerformQueueTests {
    /// Counts the doorbell's rings. Any thread.
    private final class Rings: Sendable {
        let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .relaxed) }
    }

    private func makeQueue() -> (PerformQueue<String>, LoopLifecycle, Rings) {
        let lifecycle = LoopLifecycle()
        let rings = Rings()
        let queue = PerformQueue<String>(lifecycle: lifecycle) { rings.count.add(1, ordering: .relaxed) }
        return (queue, lifecycle, rings)
    }

    private func fromOtherThread(_ queue: PerformQueue<String>, _ item: String) {
        TestThread { _ = queue.enqueue(item, onLoop: false) }.join()
    }

    private func drainAll(_ queue: PerformQueue<String>) -> [String] {
        var out: [String] = []
        queue.drain(limit: .max) { out.append($0) }
        return out
    }

    @Test("rule 1: items run in the order they were enqueued, across the loop's side and other threads'")
    func oneOrder() {
        let (queue, _, _) = makeQueue()
        fromOtherThread(queue, "other-1")
        _ = queue.enqueue("loop-1", onLoop: true)
        fromOtherThread(queue, "other-2")
        fromOtherThread(queue, "other-3")
        _ = queue.enqueue("loop-2", onLoop: true)
        fromOtherThread(queue, "other-4")
        #expect(queue.count == 6)
        #expect(drainAll(queue) == ["other-1", "loop-1", "other-2", "other-3", "loop-2", "other-4"])
        #expect(!queue.hasItems)
    }

    @Test("rule 2: an item enqueued during a drain runs after the items already taken, in the same drain")
    func enqueuedDuringDrain() {
        let (queue, _, _) = makeQueue()
        _ = queue.enqueue("a", onLoop: true)
        _ = queue.enqueue("b", onLoop: true)
        var out: [String] = []
        let ran = queue.drain(limit: .max) { item in
            out.append(item)
            if item == "a" {
                _ = queue.enqueue("from-a", onLoop: true)
                fromOtherThread(queue, "other-during-a")
            }
        }
        #expect(out == ["a", "b", "from-a", "other-during-a"])
        #expect(ran == 4)
    }

    @Test("rule 2: past the limit, what is left runs in the next drain, in order")
    func limitCarriesOver() {
        let (queue, _, _) = makeQueue()
        for i in 0..<5 { _ = queue.enqueue("\(i)", onLoop: true) }
        var first: [String] = []
        #expect(queue.drain(limit: 3) { first.append($0) } == 3)
        #expect(first == ["0", "1", "2"])
        #expect(queue.hasItems)
        _ = queue.enqueue("5", onLoop: true)
        #expect(drainAll(queue) == ["3", "4", "5"])
    }

    @Test("the doorbell rings once per empty → non-empty transition of the other threads' side")
    func doorbellCoalesces() {
        let (queue, _, rings) = makeQueue()
        for i in 0..<10 { fromOtherThread(queue, "\(i)") }
        #expect(rings.value == 1)
        _ = queue.enqueue("loop", onLoop: true)
        #expect(rings.value == 1, "the loop's own side never rings")
        #expect(drainAll(queue).count == 11)
        fromOtherThread(queue, "again")
        #expect(rings.value == 2)
        #expect(queue.ringCount == 2)
    }

    @Test("rule 3: once closed, both sides refuse items; items queued before the close still drain")
    func closeRefuses() {
        let (queue, lifecycle, rings) = makeQueue()
        fromOtherThread(queue, "before")
        lifecycle.move(from: .open, to: .shuttingDown)
        #expect(queue.enqueue("while-shutting-down", onLoop: true), "the final drain still accepts")
        queue.close()
        #expect(lifecycle.state == .closing)
        #expect(!queue.enqueue("late-loop", onLoop: true))
        let refused = Atomic<Bool>(false)
        TestThread { refused.store(!queue.enqueue("late-other", onLoop: false), ordering: .relaxed) }.join()
        let wasRefused = refused.load(ordering: .relaxed)
        #expect(wasRefused)
        let ringsBefore = rings.value
        queue.ring()
        #expect(rings.value == ringsBefore, "no ring once the eventfd may be closed")
        #expect(drainAll(queue) == ["before", "while-shutting-down"])
    }
}
