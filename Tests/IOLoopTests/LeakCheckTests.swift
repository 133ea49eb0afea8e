import AccessoryTestSupport
import IOLoop
import SystemCalls
import Testing

/// The end-of-test leak check must catch each kind of leftover, and only leftovers.
@Suite("loop leak check")
struct LeakCheckTests {
    private func leftovers(_ body: (IOLoop) throws -> Void) throws -> LoopLeftovers? {
        do {
            try withCheckedLoop(body)
            return nil
        } catch let error as LoopLeftoversError {
            return error.leftovers
        }
    }

    @Test("a test that cleans up passes: fired and cancelled timers, cancelled sources and observers, run blocks")
    func cleanTestPasses() throws {
        let left = try leftovers { loop in
            var fired = false
            loop.scheduleTimer(after: .milliseconds(1)) { fired = true }
            loop.scheduleTimer(after: .seconds(60)) {}.cancel()
            let pipe = try FileIO.pipe()
            try loop.addSource(owning: pipe.first, interest: .readable) { _ in }.cancel()
            pipe.second.close()
            loop.addObserver(activities: .beforeWaiting) { _ in }.cancel()
            loop.perform {}
            let start = loop.now
            loop.run(while: { !fired && loop.now < start + .seconds(5) })
        }
        #expect(left == nil)
    }

    @Test("a leaked timer fails the test")
    func leakedTimer() throws {
        let left = try leftovers { loop in _ = loop.scheduleTimer(after: .seconds(60)) {} }
        #expect(left == LoopLeftovers(timers: 1))
    }

    @Test("a leaked repeating timer fails the test, also after it has fired")
    func leakedRepeatingTimer() throws {
        let left = try leftovers { loop in
            var ticks = 0
            loop.scheduleTimer(after: .milliseconds(1), repeating: .milliseconds(1)) { ticks += 1 }
            let start = loop.now
            loop.run(while: { ticks < 2 && loop.now < start + .seconds(5) })
        }
        #expect(left == LoopLeftovers(timers: 1))
    }

    @Test("a leaked source, observer or queued block fails the test")
    func otherLeaks() throws {
        let pipe = try FileIO.pipe()
        let writer = pipe.second.release()
        let readEnd = pipe.first.release()
        defer {
            OwnedFD(adopting: readEnd).close()
            OwnedFD(adopting: writer).close()
        }
        let leakedSource = try leftovers { loop in
            _ = try loop.addSource(fd: readEnd, interest: .readable) { _ in }
        }
        #expect(leakedSource == LoopLeftovers(sources: 1))
        let leakedObserver = try leftovers { loop in
            _ = loop.addObserver(activities: .afterWaiting) { _ in }
        }
        #expect(leakedObserver == LoopLeftovers(observers: 1))
        let leakedBlock = try leftovers { loop in _ = loop.perform {} }
        #expect(leakedBlock == LoopLeftovers(blocks: 1))
    }

    @Test("on a spawned loop the check runs on the loop thread and sees a leaked timer")
    func spawnedLoop() throws {
        #expect(throws: LoopLeftoversError.self) {
            try withCheckedSpawnedLoop(name: "leak-check") { loop in
                _ = Wait.onLoop(loop) { _ = loop.scheduleTimer(after: .seconds(60)) {} }
            }
        }
        try withCheckedSpawnedLoop(name: "leak-check") { loop in
            _ = Wait.onLoop(loop) { loop.scheduleTimer(after: .seconds(60)) {}.cancel() }
        }
    }

    @Test("EmbeddedLoop: a timer left pending or a block left queued is reported; fired ones are not")
    func embeddedLoop() throws {
        let loop = EmbeddedLoop()
        loop.scheduleTimer(after: .seconds(1)) {}
        let kept = loop.scheduleTimer(after: .seconds(5)) {}
        loop.perform {}
        #expect(loop.leftovers == LoopLeftovers(timers: 2, blocks: 1))
        loop.advanceTime(by: .seconds(2))
        #expect(loop.leftovers == LoopLeftovers(timers: 1))
        #expect(throws: LoopLeftoversError.self) { try LoopLeakCheck.expectNothingLeft(on: loop) }
        kept.cancel()
        try LoopLeakCheck.expectNothingLeft(on: loop)
    }
}
