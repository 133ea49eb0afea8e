import AccessoryTestSupport
import Glibc
import IOLoop
import SystemCalls
import Testing

/// An actor whose methods run on an IOLoop's thread.
actor LoopPinned {
    nonisolated let unownedExecutor: UnownedSerialExecutor
    let loop: IOLoop
    var counter = 0

    init(loop: IOLoop) {
        self.loop = loop
        self.unownedExecutor = loop.asUnownedSerialExecutor()
    }

    func increment() -> (onLoop: Bool, value: Int) {
        counter += 1
        return (loop.inLoop, counter)
    }
}

@Suite("executor")
struct ExecutorTests {
    @Test("an actor pinned to the loop runs its methods on the loop thread; await hops in and out")
    func actorRunsOnLoop() async throws {
        try await withCheckedSpawnedLoop(name: "exec-test") { loop in
            let actor = LoopPinned(loop: loop)
            for i in 1...100 {
                let r = await actor.increment()
                #expect(r.onLoop)
                #expect(r.value == i)
                #expect(!loop.inLoop, "back on the test's executor after the await")
            }
        }
    }

    @Test("assumeIsolated works inside a raw fd callback on the loop")
    func assumeIsolatedInCallback() async throws {
        try withCheckedSpawnedLoop(name: "exec-assume") { loop in
            let actor = LoopPinned(loop: loop)
            let seen = Shared(0)
            let writerFD = Shared<CInt>(-1)
            loop.perform {
                let p = try! FileIO.pipe()
                let writer = p.second.release()
                let readEnd = p.first
                writerFD.mutate { $0 = writer }
                var source: FDSource?
                source = try! loop.addSource(owning: readEnd, interest: .readable) { _ in
                    let v = actor.assumeIsolated { a -> Int in
                        a.counter += 10
                        return a.counter
                    }
                    seen.mutate { $0 = v }
                    source?.cancel()
                }
            }
            #expect(Wait.until { writerFD.value >= 0 })
            _ = try FileIO.write(writerFD.value, [1])
            #expect(Wait.until { seen.value == 10 })
            OwnedFD(adopting: writerFD.value).close()
        }
    }
}
