import AccessoryTestSupport
import ControlProtocol
import IOLoop
import Testing

@testable import AccessoryCore

/// The lock's lease on virtual time: who holds it when, who gets it next, what each waiter is
/// told.
@Suite("lock lease")
struct LeaseTests {
    final class Fixture {
        let loop = EmbeddedLoop()
        let lease: Lease
        let start: LoopInstant
        /// What happened, in order: "granted 2", "failed 3: …", "expired 1", "released".
        var events: [String] = []

        init() {
            lease = Lease(scheduler: loop, device: "echo")
            start = loop.now
            lease.onExpired = { [unowned self] in events.append("expired \($0)") }
            lease.onReleased = { [unowned self] in events.append("released") }
        }

        func acquire(_ client: UInt64, timeoutMs: Int? = nil, leaseMs: Int = 1000) {
            lease.acquire(
                clientID: client,
                timeoutMs: timeoutMs,
                leaseMs: leaseMs,
                granted: { [unowned self] in events.append("granted \(client)") },
                failed: { [unowned self] in
                    events.append("failed \(client): \(ErrorCode(rawValue: $0.rpcError.code)?.name ?? "?")")
                }
            )
        }

        func at(ms: Int) -> LoopInstant { start + .milliseconds(ms) }
        func advance(ms: Int) { loop.advanceTime(by: .milliseconds(ms)) }
    }

    @Test("a free lock is granted at once, held until the lease ends, then free")
    func leaseRunsOut() {
        let f = Fixture()
        #expect(f.lease.state == .free)
        f.acquire(1, leaseMs: 500)
        #expect(f.lease.state == .held(by: 1, until: f.at(ms: 500)))
        #expect(f.events == ["granted 1"])
        f.advance(ms: 499)
        #expect(f.lease.holder == 1)
        f.advance(ms: 1)
        #expect(f.lease.state == .free)
        #expect(f.events == ["granted 1", "expired 1", "released"])
        #expect(f.loop.nextTimerDeadline == nil, "no timer left behind")
    }

    @Test("the holder locking again starts a new lease from now")
    func relockRenewsTheLease() {
        let f = Fixture()
        f.acquire(1, leaseMs: 500)
        f.advance(ms: 400)
        f.acquire(1, leaseMs: 500)
        #expect(f.lease.state == .held(by: 1, until: f.at(ms: 900)))
        f.advance(ms: 499)
        #expect(f.lease.holder == 1, "the first lease's timer did not release it")
        f.advance(ms: 1)
        #expect(f.lease.state == .free)
    }

    @Test("waiters get the lock in arrival order, each with its own lease")
    func waitersInOrder() throws {
        let f = Fixture()
        f.acquire(1, leaseMs: 100)
        f.acquire(2, leaseMs: 300)
        f.acquire(3, leaseMs: 50)
        #expect(f.lease.waitingClients == [2, 3])
        try f.lease.unlock(clientID: 1)
        #expect(f.lease.state == .held(by: 2, until: f.at(ms: 300)))
        f.advance(ms: 300)
        #expect(f.lease.state == .held(by: 3, until: f.at(ms: 350)))
        #expect(f.events == ["granted 1", "granted 2", "released", "expired 2", "granted 3", "released"])
    }

    @Test("a waiter gives up after its timeout; a second wait by one client is refused")
    func waitTimeoutAndOneWaitPerClient() {
        let f = Fixture()
        f.acquire(1, leaseMs: 10_000)
        f.acquire(2, timeoutMs: 200)
        f.acquire(2, timeoutMs: 200)
        #expect(f.events == ["granted 1", "failed 2: queue_full"])
        f.advance(ms: 199)
        #expect(f.lease.waitingClients == [2])
        f.advance(ms: 1)
        #expect(f.lease.waitingClients == [])
        #expect(f.events.last == "failed 2: timed_out")
        #expect(f.lease.holder == 1)
    }

    @Test("unlock by someone else or on a free lock says why, and changes nothing")
    func unlockErrors() {
        let f = Fixture()
        #expect(throws: AccessoryError.notLocked(device: "echo")) { try f.lease.unlock(clientID: 1) }
        f.acquire(1)
        #expect(throws: AccessoryError.lockedByAnotherClient(device: "echo")) { try f.lease.unlock(clientID: 2) }
        #expect(f.lease.holder == 1)
    }

    @Test("an attach holds the lock without a lease until released")
    func attachHasNoLease() {
        let f = Fixture()
        f.acquire(1, leaseMs: 100)
        f.lease.attach(by: 1)
        #expect(f.lease.state == .attached(by: 1))
        f.advance(ms: 10_000)
        #expect(f.lease.state == .attached(by: 1), "the lock's lease no longer applies")
        #expect(f.loop.nextTimerDeadline == nil)
        f.lease.release()
        #expect(f.lease.state == .free)
    }

    @Test("a holder that leaves hands the lock on; a waiter that leaves is never answered")
    func clientLeaving() {
        let f = Fixture()
        f.acquire(1)
        f.acquire(2, timeoutMs: 500)
        f.acquire(3)
        f.lease.clientLeft(2)
        f.advance(ms: 500)
        #expect(!f.events.contains { $0.hasPrefix("failed 2") })
        f.lease.clientLeft(1)
        #expect(f.lease.holder == 3)
        #expect(f.events == ["granted 1", "granted 3", "released"])
    }

    @Test("failing the waiters answers each once and keeps the holder")
    func failWaiters() {
        let f = Fixture()
        f.acquire(1)
        f.acquire(2, timeoutMs: 100)
        f.acquire(3)
        f.lease.failWaiters(.unavailable(device: "echo", state: .disabled, reason: "stopping"))
        f.advance(ms: 200)
        #expect(f.events == ["granted 1", "failed 2: device_unavailable", "failed 3: device_unavailable"])
        #expect(f.lease.holder == 1)
        #expect(f.lease.waitingClients.isEmpty)
    }
}
