import AccessoryTestSupport
import IOLoop
import Testing

@testable import AccessoryCore

/// Admission on virtual time: the verdict for each way an accessory can be found, and the
/// parked requests' waits.
@Suite("request admission")
struct AdmissionTests {
    /// Stands in for a request operation.
    final class Request {
        let name: String
        init(_ name: String) { self.name = name }
    }

    final class Fixture {
        let loop = EmbeddedLoop()
        let admission: Admission<Request>
        var expired: [String] = []

        init(queueDepth: Int = 4) {
            admission = Admission(scheduler: loop, queueDepth: queueDepth)
            admission.onParkExpired = { [unowned self] in expired.append($0.name) }
        }

        func after(ms: Int) -> LoopInstant { loop.now + .milliseconds(ms) }

        func verdict(
            client: UInt64 = 1,
            waitMs: Int? = nil,
            open: Bool = true,
            holder: UInt64? = nil,
            ready: Bool = true,
            queued: Int = 0
        ) -> Admission<Request>.Verdict {
            admission.verdict(
                client: client,
                waitDeadline: waitMs.map(after(ms:)),
                .init(open: open, holder: holder, ready: ready, queued: queued)
            )
        }
    }

    @Test("closed beats everything; a ready accessory queues")
    func closedAndReady() {
        let f = Fixture()
        #expect(f.verdict(open: false, holder: 2, ready: false, queued: 9) == .closed)
        #expect(f.verdict() == .enqueue(awaitingReadyUntil: nil))
        #expect(f.verdict(waitMs: 100) == .enqueue(awaitingReadyUntil: nil), "ready: nothing to wait for")
    }

    @Test("another client's lock: refused without wait_ms, parked with it; the holder's own requests queue")
    func anotherClientsLock() {
        let f = Fixture()
        #expect(f.verdict(holder: 2) == .locked(holder: 2))
        #expect(f.verdict(waitMs: 0, holder: 2) == .locked(holder: 2), "a wait already over")
        #expect(f.verdict(waitMs: 250, holder: 2) == .park(until: f.after(ms: 250)))
        #expect(f.verdict(client: 2, holder: 2) == .enqueue(awaitingReadyUntil: nil))
    }

    @Test("not ready: unavailable without wait_ms, queued behind a wait for readiness with it")
    func notReady() {
        let f = Fixture()
        #expect(f.verdict(ready: false) == .unavailable)
        #expect(f.verdict(waitMs: 300, ready: false) == .enqueue(awaitingReadyUntil: f.after(ms: 300)))
    }

    @Test("queue_depth counts the queued requests, and the parked ones for a request that would park")
    func queueDepth() {
        let f = Fixture(queueDepth: 3)
        #expect(f.verdict(queued: 3) == .queueFull)
        #expect(f.verdict(queued: 2) == .enqueue(awaitingReadyUntil: nil))
        f.admission.park(Request("a"), until: f.after(ms: 1000))
        #expect(f.verdict(waitMs: 100, holder: 2, queued: 2) == .queueFull)
        #expect(f.verdict(waitMs: 100, holder: 2, queued: 1) == .park(until: f.after(ms: 100)))
        #expect(f.verdict(ready: false, queued: 3) == .unavailable, "unavailable is said before full")
    }

    @Test("a parked request's wait runs out at its deadline, the others stay parked")
    func parkExpires() {
        let f = Fixture()
        let a = Request("a")
        let b = Request("b")
        f.admission.park(a, until: f.after(ms: 100))
        f.admission.park(b, until: f.after(ms: 300))
        f.loop.advanceTime(by: .milliseconds(99))
        #expect(f.expired.isEmpty)
        f.loop.advanceTime(by: .milliseconds(1))
        #expect(f.expired == ["a"])
        #expect(f.admission.parked.map(\.item.name) == ["b"])
        #expect(!f.admission.unpark(a), "already gone")
    }

    @Test("released in arrival order with their deadlines; their timers no longer fire")
    func releaseParked() {
        let f = Fixture()
        let a = Request("a")
        let b = Request("b")
        f.admission.park(a, until: f.after(ms: 100))
        f.admission.park(b, until: f.after(ms: 50))
        let released = f.admission.releaseParked()
        #expect(released.map(\.item.name) == ["a", "b"])
        #expect(released.map(\.until) == [f.after(ms: 100), f.after(ms: 50)])
        #expect(f.admission.parked.isEmpty)
        f.loop.advanceTime(by: .milliseconds(500))
        #expect(f.expired.isEmpty)
        #expect(f.loop.nextTimerDeadline == nil, "no timer left behind")
    }

    @Test("an unparked request (cancelled, client gone) is not told its wait ran out")
    func unpark() {
        let f = Fixture()
        let a = Request("a")
        f.admission.park(a, until: f.after(ms: 100))
        #expect(f.admission.unpark(a))
        f.loop.advanceTime(by: .milliseconds(200))
        #expect(f.expired.isEmpty)
        #expect(f.loop.nextTimerDeadline == nil)
    }
}
