import AccessoryTestSupport
import ControlProtocol
import Glibc
import IOLoop
import SystemCalls
import Testing

@testable import ControlServer

@Suite("accept failures back off instead of spinning")
struct AcceptFailureTests {
    @Test("EMFILE on accept: no spin, then recovery")
    func emfileBackoff() throws {
        try withServer { h in
            let failing = Shared(true)
            let calls = Shared(0)
            let fd = h.listeningFD
            let token = FaultInjection.install { name, callFD in
                guard name == .accept4, callFD == fd, failing.value else { return nil }
                calls.mutate { $0 += 1 }
                return .error(.tooManyOpenFiles)
            }
            defer { FaultInjection.remove(token) }

            // Count the control loop's iterations too: a spinning loop iterates without sleeping.
            let iterations = Shared(0)
            let loop = h.loop
            let observer = try #require(
                Wait.onLoop(loop) { loop.addObserver(activities: .afterWaiting) { _ in iterations.mutate { $0 += 1 } } }
            )
            defer { loop.perform { observer.cancel() } }

            let start = MonotonicNow.seconds()  // before the first accept can fail
            let client = try h.client()  // sits in the listen queue
            #expect(client.send(listRequest(id: 1) + "\n"))
            #expect(Wait.until(seconds: 5) { calls.value >= 1 })
            let iterationsBefore = iterations.value
            // Wait for the fourth failure. Paused 10, 20 and 40 ms before the retries (the
            // default back-off), it cannot come sooner than 70 ms after the start; level-triggered
            // and unpaused, it would come within microseconds, after as many loop turns. (The
            // pause itself is tested on virtual time in AcceptPauseTests; this shows the server
            // uses it.)
            #expect(Wait.until(seconds: 5) { calls.value >= 4 })
            let elapsed = MonotonicNow.seconds() - start
            let spins = iterations.value - iterationsBefore
            // 60, not 70: a timer may fire up to a millisecond early at each pause.
            #expect(elapsed >= 0.06, "accept failed 4 times in \(elapsed) s")
            #expect(spins <= 40, "the control loop woke \(spins) times for 3 retries")
            #expect(abs(h.server.statistics.acceptErrors - calls.value) <= 1)
            #expect(h.logs.contains(.error, "pausing new connections"))
            // The log line names the limit that was hit and its value.
            let soft = try #require(DescriptorLimit.current()).soft
            #expect(h.logs.contains(.error, "file-descriptor limit is reached (RLIMIT_NOFILE \(soft)"))

            failing.mutate { $0 = false }
            let response = try #require(client.readResponse(seconds: 5))
            #expect(response.id == .int(1) && response.result != nil)
            #expect(h.logs.contains(.notice, "again after"))
            // Accepting is back to normal.
            #expect(try h.client().call(listRequest(id: 2))?.result != nil)
        }
    }

    @Test("the back-off doubles up to its maximum and resets")
    func backoffSequence() {
        var backoff = AcceptBackoff(initial: .milliseconds(10), maximum: .milliseconds(100))
        let delays = (0..<6).map { _ in backoff.failed() }
        #expect(
            delays == [
                .milliseconds(10), .milliseconds(20), .milliseconds(40), .milliseconds(80), .milliseconds(100),
                .milliseconds(100),
            ]
        )
        #expect(backoff.succeeded() == 6)
        #expect(backoff.succeeded() == 0)
        #expect(backoff.failed() == .milliseconds(10))
    }

    @Test("the log throttle lets one line a second through and counts the rest")
    func throttle() {
        var throttle = LogThrottle(interval: .seconds(1))
        #expect(throttle.admit(now: 0) == (true, 0))
        #expect(throttle.admit(now: 10).emit == false)
        #expect(throttle.admit(now: 999_999_999).emit == false)
        #expect(throttle.admit(now: 1_000_000_000) == (true, 2))
    }
}
