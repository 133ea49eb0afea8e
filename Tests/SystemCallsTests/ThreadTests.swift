import AccessoryTestSupport
import Synchronization
import SystemCalls
import Testing

@Suite("threads")
struct ThreadTests {
    @Test("ThreadID: the calling thread is current, another thread and zero are not")
    func threadIdentity() {
        let here = ThreadID.current
        #expect(here.rawValue != 0)
        #expect(here.isCurrent)
        #expect(!ThreadID(rawValue: 0).isCurrent)
        let seen = Locked<(id: ThreadID, hereIsCurrent: Bool)?>(nil)
        let worker = WorkerThread(name: "thread-test") {
            seen.withLock { $0 = (ThreadID.current, here.isCurrent) }
        }
        worker.join()
        let other = seen.withLock { $0 }
        #expect(other != nil, "join() returned before the body ran")
        #expect(other?.id != here)
        #expect(other?.hereIsCurrent == false)
    }

    @Test("WorkerThread runs its body once on a new thread and join() waits for it to return")
    func workerRunsAndJoins() {
        let runs = Atomic<Int>(0)
        let worker = WorkerThread(name: "thread-test") {
            // Long enough that a join() that did not wait would see zero.
            var n = 0
            for i in 0..<2_000_000 { n &+= i }
            runs.add(n == 0 ? 2 : 1, ordering: .releasing)
        }
        worker.join()
        #expect(runs.load(ordering: .acquiring) == 1)
    }
}
