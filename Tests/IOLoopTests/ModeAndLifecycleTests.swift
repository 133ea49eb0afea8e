import AccessoryTestSupport
import Glibc
import Synchronization
import SystemCalls
import Testing

@testable import IOLoop

@Suite("modes, observers, run, stop, shutdown")
struct ModeAndLifecycleTests {
    @Test("a source registered only in another mode does not fire in .default; it fires in its own")
    func modes() throws {
        try withCheckedLoop { loop in
            let custom = RunMode("custom")
            let p = try FileIO.pipe()
            let w = p.second
            _ = try FileIO.write(w.rawValue, [1])
            var fired = 0
            let s = try loop.addSource(owning: p.first, interest: .readable, modes: [custom]) { _ in fired += 1 }
            var timerInDefault = 0
            _ = loop.scheduleTimer(after: .milliseconds(1), modes: [custom]) { timerInDefault += 1 }
            loop.run(mode: .default, until: loop.now + .milliseconds(30))
            #expect(fired == 0)
            #expect(timerInDefault == 0)
            loop.run(mode: custom, until: loop.now + .milliseconds(30))
            #expect(fired > 0)
            #expect(timerInDefault == 1)
            s.cancel()
            w.close()
        }
    }

    @Test(".common sources fire in every common mode, including one added later")
    func commonModes() throws {
        try withCheckedLoop { loop in
            let tracking = RunMode("tracking")
            let p = try FileIO.pipe()
            let w = p.second
            _ = try FileIO.write(w.rawValue, [1])
            var fired = 0
            let s = try loop.addSource(owning: p.first, interest: .readable) { _ in fired += 1 }
            loop.run(mode: tracking, until: loop.now + .milliseconds(20))
            #expect(fired == 0, "tracking is not a common mode yet")
            try loop.addCommonMode(tracking)
            loop.run(mode: tracking, until: loop.now + .milliseconds(20))
            #expect(fired > 0)
            s.cancel()
            w.close()
        }
    }

    @Test("observers see before-waiting and after-waiting, alternating")
    func observers() throws {
        try withCheckedLoop { loop in
            var seen: [LoopActivity] = []
            let o = loop.addObserver(activities: [.beforeWaiting, .afterWaiting]) { seen.append($0) }
            loop.scheduleTimer(after: .milliseconds(5)) {}
            loop.run(until: loop.now + .milliseconds(20))
            #expect(seen.count >= 2)
            #expect(seen.first == .beforeWaiting)
            for (a, b) in zip(seen, seen.dropFirst()) { #expect(a != b) }
            o.cancel()
            let n = seen.count
            loop.run(until: loop.now + .milliseconds(5))
            #expect(seen.count == n, "a cancelled observer is not called")
        }
    }

    @Test("run(while:) returns once a block makes the condition false")
    func runWhile() throws {
        try withCheckedLoop { loop in
            var done = false
            loop.scheduleTimer(after: .milliseconds(10)) { done = true }
            let result = loop.run(while: { !done })
            #expect(result == .conditionMet)
        }
    }

    @Test("stop() from another thread ends run()")
    func stopFromAnotherThread() throws {
        try withCheckedLoop { loop in
            // The stop must come while run() is under way (a stop before it would be seen at its
            // first check, without a wake-up): the other thread waits for the loop's first wait.
            let waiting = Atomic<Bool>(false)
            let o = loop.addObserver(activities: .beforeWaiting) { _ in waiting.store(true, ordering: .releasing) }
            let sawWaiting = Atomic<Bool>(false)
            let t = TestThread {
                sawWaiting.store(Wait.until { waiting.load(ordering: .acquiring) }, ordering: .releasing)
                loop.stop()
            }
            let start = loop.now
            let result = loop.run(until: start + .seconds(20))
            let ranFor = loop.now - start
            t.join()
            o.cancel()
            #expect(sawWaiting.load(ordering: .acquiring) == true, "the loop never reached its wait")
            #expect(result == .stopped)
            // The stop wakes the loop: a stop seen only at the run's deadline also returns .stopped.
            #expect(ranFor < .seconds(10), "run() went on for \(ranFor) after the stop")
        }
    }

    @Test("shutdown runs what was performed, refuses later blocks, joins the thread and closes owned fds")
    func shutdownWithPendingWork() throws {
        let loop = try IOLoop.spawn(name: "shutdown-test")
        let ran = Atomic<Int>(0)
        let p = try FileIO.pipe()
        let writer = p.second
        // Give the loop ownership of the pipe's read end.
        let readEnd = Locked<OwnedFD?>(p.first)
        let registered = Atomic<Bool>(false)
        loop.perform {
            let fd = readEnd.withLock { $0.take() }!
            _ = try! loop.addSource(owning: fd, interest: .readable) { _ in }
            // Set once the batch this block runs in is over, so that the holding block below
            // starts a batch of its own.
            loop.addObserver(activities: .beforeWaiting) { _ in registered.store(true, ordering: .releasing) }
        }
        #expect(Wait.until { registered.load(ordering: .acquiring) })
        // Hold the loop busy until shutdown has begun, so the next blocks are still queued then.
        // The batch the holding block runs in goes on for at most `performBatchLimit` blocks in
        // all; the run then sees the shutdown and returns, and the final drain runs the rest:
        // those are what shutdown() counts.
        let blocks = IOLoop.performBatchLimit + 1000
        let heldUntilShutdown = Atomic<Bool>(false)
        let holding = Atomic<Bool>(false)
        loop.perform {
            holding.store(true, ordering: .releasing)
            heldUntilShutdown.store(Wait.until { loop.lifecycle.state != .open }, ordering: .releasing)
        }
        // The loop runs the holding block before the others are queued (on a loaded machine its
        // thread may not have woken yet, and the final drain would then run them all).
        #expect(Wait.until { holding.load(ordering: .acquiring) })
        for _ in 0..<blocks { loop.perform { ran.add(1, ordering: .relaxed) } }
        let drained = loop.shutdown()
        #expect(heldUntilShutdown.load(ordering: .acquiring) == true, "shutdown never began while the loop was held")
        #expect(ran.load(ordering: .relaxed) == blocks)
        #expect(drained == blocks - (IOLoop.performBatchLimit - 1), "the final drain ran \(drained)")
        #expect(loop.perform {} == false, "perform after shutdown is refused")
        #expect(loop.isShutDown)
        // The loop closed the read end: writing to the pipe now fails with EPIPE.
        signal(SIGPIPE, SIG_IGN)
        #expect(throws: SyscallError.self) { _ = try FileIO.write(writer.rawValue, [1]) }
        writer.close()
    }
}
