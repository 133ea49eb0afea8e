import AccessoryTestSupport
import IOLoop
import SystemCalls
import Testing

/// `epoll_wait` interrupted (`EINTR`) on every call, through the fault seam: the loop wakes
/// early each time, and must neither fire a timer before its deadline nor miss one, nor lose a
/// perform block.
@Suite("interrupted waits")
struct InterruptedWaitTests {
    @Test("every epoll_wait interrupted once: timers fire on time, perform blocks run")
    func everyWaitInterrupted() throws {
        try withCheckedLoop { loop in
            let eintr = EveryCallFault(.error(.interrupted)) { name, _ in name == .epoll_wait }
            let token = eintr.install()
            defer { FaultInjection.remove(token) }

            var fired: [Int] = []
            let start = loop.now
            var firedAt: [Int: Duration] = [:]
            for ms in [40, 10, 25] {
                loop.scheduleTimer(after: .milliseconds(ms)) {
                    fired.append(ms)
                    firedAt[ms] = loop.now - start
                }
            }
            let performed = Shared(false)
            let other = try IOLoop.spawn(name: "interrupt-sender")
            defer { other.shutdown() }
            other.perform { loop.perform { performed.mutate { $0 = true } } }
            loop.run(while: { (fired.count < 3 || !performed.value) && loop.now < start + .seconds(10) })
            #expect(fired == [10, 25, 40])
            for (ms, at) in firedAt { #expect(at >= .milliseconds(ms), "the \(ms) ms timer fired at \(at)") }
            #expect(loop.now - start < .seconds(2))
            #expect(performed.value)
            #expect(eintr.injected >= 3, "only \(eintr.injected) waits interrupted")
        }
    }
}
