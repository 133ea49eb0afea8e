import AccessoryConfig
import AccessoryCore
import AccessorySimulator
import AccessoryTestSupport
import ControlProtocol
import IOLoop
import Testing

/// `wait_ms` as a condition: requests that may wait sit in the accessory's queue behind a
/// produced "await ready" operation, in order, and go on when the accessory comes back.
@Suite("wait_ms: waiting for an absent accessory")
struct WaitForReadyTests {
    static let yaml = """
        accessories:
          - name: echo
            path: {sim:echo}
            response: {timeout_ms: 1000}
            reconnect: {initial_ms: 20, max_ms: 50}
        """

    func transact(_ id: Int, _ text: String, waitMs: Int? = nil) -> String {
        let wait = waitMs.map { #","wait_ms":\#($0)"# } ?? ""
        return
            #"{"jsonrpc":"2.0","id":\#(id),"method":"transact","params":{"device":"echo","data":"\#(text)"\#(wait)}}"#
    }

    /// An echo accessory, ready, then unplugged for `ms` (the registry has seen it go).
    func echoUnplugged(forMs ms: Int) throws -> CoreHarness {
        let h = try CoreHarness(sims: ["echo": SimulatorConfiguration(name: "echo")], yaml: Self.yaml)
        #expect(h.waitReady("echo"))
        h.simulators[0].hangUp(reappearAfter: .milliseconds(ms))
        #expect(Wait.until(seconds: 5) { h.state("echo") != .ready })
        return h
    }

    @Test("waiting requests are queued, answered in order once the accessory is back; others fail fast")
    func waitersRunInOrderWhenReady() throws {
        let h = try echoUnplugged(forMs: 400)
        let c = RecordingOrigin(clientID: 1)
        h.request(transact(1, "first", waitMs: 5000), from: c)
        h.request(transact(2, "second", waitMs: 5000), from: c)
        h.request(transact(3, "impatient"), from: c)
        #expect(c.response(3)?.errorCode == .deviceUnavailable, "no wait_ms: fails fast")
        // Both wait inside the queue (with the produced await-ready operation ahead of them).
        h.request(#"{"jsonrpc":"2.0","id":4,"method":"device.status","params":{"device":"echo"}}"#, from: c)
        let depth = c.response(4)?.value?["queue_depth"]?.int64Value ?? 0
        #expect(depth >= 2, "waiting requests are in the queue: \(depth)")
        #expect(frameTexts(c.response(1)?.value) == ["first"])
        #expect(frameTexts(c.response(2)?.value) == ["second"])
        #expect(c.duplicates == 0)
    }

    @Test("a wait that runs out answers `wait expired` (1003) and frees the queue for the next waiter")
    func expiredWaitFailsAndTheNextGoesOn() throws {
        let h = try echoUnplugged(forMs: 600)
        let c = RecordingOrigin(clientID: 1)
        h.request(transact(1, "short", waitMs: 100), from: c)
        h.request(transact(2, "long", waitMs: 5000), from: c)
        let first = c.response(1, seconds: 2)
        #expect(first?.errorCode == .timedOut)
        #expect(frameTexts(c.response(2)?.value) == ["long"])
    }

    @Test("cancelling a waiting request answers 1004 at once; its wait leaves the queue")
    func cancelWhileWaiting() throws {
        let h = try echoUnplugged(forMs: 800)
        let c = RecordingOrigin(clientID: 1)
        let other = RecordingOrigin(clientID: 2)
        h.request(transact(1, "doomed", waitMs: 10_000), from: c)
        h.request(transact(1, "patient", waitMs: 10_000), from: other)
        h.request(#"{"jsonrpc":"2.0","id":9,"method":"cancel","params":{"id":1}}"#, from: c)
        #expect(c.response(9)?.value?["cancelled"] == .bool(true))
        #expect(c.response(1, seconds: 0.3)?.errorCode == .cancelled, "answered before the accessory is back")
        #expect(frameTexts(other.response(1)?.value) == ["patient"])
        #expect(c.duplicates == 0 && other.duplicates == 0)
    }

    @Test("a waiting client that leaves does not hold the queue")
    func clientLeavesWhileWaiting() throws {
        let h = try echoUnplugged(forMs: 3000)
        let gone = RecordingOrigin(clientID: 1)
        h.request(transact(1, "lost", waitMs: 10_000), from: gone)
        let c = RecordingOrigin(clientID: 2)
        func depth(_ id: Int) -> Int64? {
            h.request(#"{"jsonrpc":"2.0","id":\#(id),"method":"device.status","params":{"device":"echo"}}"#, from: c)
            return c.response(Int64(id))?.value?["queue_depth"]?.int64Value
        }
        #expect((depth(1) ?? 0) >= 1)
        h.registry.clientLeft(gone)
        // Long before the accessory is back (3 s), the queue is empty again.
        var id = 1
        #expect(
            Wait.until(seconds: 1) {
                id += 1
                return depth(id) == 0
            }
        )
        #expect(h.state("echo") != .ready)
    }
}
