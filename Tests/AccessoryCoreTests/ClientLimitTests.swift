import AccessoryConfig
import AccessoryCore
import AccessorySimulator
import AccessoryTestSupport
import ControlProtocol
import Glibc
import IOLoop
import JSONCodec
import Testing

/// The per-client limits of `limits:` as the registry applies them: a locked accessory refuses a
/// request that did not ask to wait, parked requests count against `queue_depth`, a client's
/// unanswered requests are bounded, every lock has a lease within `max_lease_ms`. The registry
/// runs on a real device loop (it takes an `IOLoop`, not a scheduler), so waits are bounded
/// polls.
@Suite("per-client limits")
struct ClientLimitTests {
    static func yaml(_ limits: String) -> String {
        """
        limits: {\(limits)}
        accessories:
          - name: echo
            path: {sim:echo}
          - name: other
            path: {sim:other}
        """
    }

    static func harness(_ limits: String) throws -> CoreHarness {
        let h = try CoreHarness(
            sims: ["echo": SimulatorConfiguration(name: "echo"), "other": SimulatorConfiguration(name: "other")],
            yaml: yaml(limits)
        )
        #expect(h.waitReady("echo") && h.waitReady("other"))
        return h
    }

    static func transact(_ id: Int, _ device: String = "echo", waitMs: Int? = nil) -> String {
        let wait = waitMs.map { #","wait_ms":\#($0)"# } ?? ""
        return
            #"{"jsonrpc":"2.0","id":\#(id),"method":"transact","params":{"device":"\#(device)","data":"r\#(id)"\#(wait)}}"#
    }

    static func lock(_ id: Int, _ device: String = "echo", extra: String = "") -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"lock","params":{"device":"\#(device)"\#(extra)}}"#
    }

    static func unlock(_ id: Int, _ device: String = "echo") -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"unlock","params":{"device":"\#(device)"}}"#
    }

    /// The arrangement most of these tests start from: a harness with `limits`, client `a`
    /// holding echo's lock (taken with request id 1), client `b` to be held to the limits.
    static func echoLocked(
        _ limits: String = "",
        ids: (a: UInt64, b: UInt64) = (1, 2)
    ) throws -> (h: CoreHarness, a: RecordingOrigin, b: RecordingOrigin) {
        let h = try harness(limits)
        let a = RecordingOrigin(clientID: ids.a)
        let b = RecordingOrigin(clientID: ids.b)
        h.request(lock(1), from: a)
        try #require(a.response(1)?.value?["locked"] == true)
        return (h, a, b)
    }

    static func error(_ r: Result<JSONValue, RPCError>?) -> RPCError? {
        if case .failure(let e) = r { return e }
        return nil
    }

    @Test("without wait_ms a request for an accessory locked by another client fails at once, naming the holder")
    func lockedFailsAtOnce() throws {
        let (h, a, b) = try Self.echoLocked(ids: (7, 8))
        h.request(Self.transact(1), from: b)
        let e = try #require(Self.error(b.response(1, seconds: 2)), "answered at once, not parked")
        #expect(e.errorCode == .deviceUnavailable)
        #expect(e.message.contains("locked by client 7"), "\(e.message)")
        #expect(e.data?["holder"]?.int64Value == 7)
        // wait_ms: 0 is no wait either.
        h.request(Self.transact(2, waitMs: 0), from: b)
        #expect(Self.error(b.response(2, seconds: 2))?.errorCode == .deviceUnavailable)
        // With wait_ms it waits for the unlock, and other accessories serve b meanwhile.
        h.request(Self.transact(3, waitMs: 10_000), from: b)
        h.request(Self.transact(4, "other"), from: b)
        #expect(frameTexts(b.response(4)?.value) == ["r4"])
        #expect(b.response(3, seconds: 0.2) == nil)
        h.request(Self.unlock(2), from: a)
        #expect(frameTexts(b.response(3)?.value) == ["r3"])
    }

    @Test("parked requests count against queue_depth; the refused ones name the limit")
    func parkedRequestsAreBoundedByQueueDepth() throws {
        let (h, a, b) = try Self.echoLocked("queue_depth: 4")
        for id in 1...10 { h.request(Self.transact(id, waitMs: 10_000), from: b) }
        for id in 5...10 {
            let e = Self.error(b.response(Int64(id)))
            #expect(e?.errorCode == .queueFull, "request \(id): \(String(describing: e))")
            #expect(e?.data?["limit"] == "queue_depth")
            #expect(e?.data?["value"]?.int64Value == 4)
        }
        #expect(b.response(1, seconds: 0.1) == nil, "the first four are parked")
        h.request(Self.unlock(2), from: a)
        for id in 1...4 { #expect(frameTexts(b.response(Int64(id))?.value) == ["r\(id)"]) }
    }

    @Test("a client's unanswered requests are bounded over all accessories, parked ones included")
    func requestsPerClientAreBounded() throws {
        let (h, a, b) = try Self.echoLocked("max_requests_per_client: 5, queue_depth: 64")
        h.request(Self.lock(2, "other"), from: a)
        #expect(a.response(2)?.value?["locked"] == true)
        for id in 1...3 { h.request(Self.transact(id, waitMs: 10_000), from: b) }
        for id in 4...6 { h.request(Self.transact(id, "other", waitMs: 10_000), from: b) }
        let e = Self.error(b.response(6))
        #expect(e?.errorCode == .queueFull, "\(String(describing: e))")
        #expect(e?.data?["limit"] == "max_requests_per_client")
        #expect(e?.message.contains("limits.max_requests_per_client") == true)
        // Another client is not held to b's count.
        let c = RecordingOrigin(clientID: 3)
        h.request(Self.transact(1, "other", waitMs: 10_000), from: c)
        #expect(c.response(1, seconds: 0.1) == nil, "parked, not refused")
        // Answers give b its room back.
        h.request(Self.unlock(3), from: a)
        h.request(Self.unlock(4, "other"), from: a)
        for id in 1...5 { #expect(frameTexts(b.response(Int64(id))?.value) == ["r\(id)"], "request \(id)") }
        for id in 7...11 { h.request(Self.transact(id, "other"), from: b) }
        for id in 7...11 { #expect(frameTexts(b.response(Int64(id))?.value) == ["r\(id)"], "request \(id)") }
    }

    @Test("a client that leaves gives its room back: its count is not carried to a later client")
    func leavingClearsTheCount() throws {
        let (h, a, b) = try Self.echoLocked("max_requests_per_client: 2")
        h.request(Self.transact(1, waitMs: 10_000), from: b)
        h.request(Self.transact(2, waitMs: 10_000), from: b)
        h.request(Self.transact(3, waitMs: 10_000), from: b)
        #expect(Self.error(b.response(3))?.data?["limit"] == "max_requests_per_client")
        // A cancel answers the request and frees its place.
        h.request(#"{"jsonrpc":"2.0","id":4,"method":"cancel","params":{"id":1}}"#, from: b)
        #expect(b.response(4)?.value?["cancelled"] == true)
        h.request(Self.transact(5, waitMs: 10_000), from: b)
        #expect(b.response(5, seconds: 0.1) == nil, "parked: the cancel made room")
        h.registry.clientLeft(b)
        h.request(Self.unlock(2), from: a)
        for id in 6...7 { h.request(Self.transact(id), from: b) }
        for id in 6...7 { #expect(frameTexts(b.response(Int64(id))?.value) == ["r\(id)"], "request \(id)") }
    }

    @Test("a lock without lease_ms gets the default lease; a longer lease than max_lease_ms is refused")
    func leases() throws {
        let h = try Self.harness("default_lease_ms: 300, max_lease_ms: 1000")
        let a = RecordingOrigin(clientID: 1)
        let b = RecordingOrigin(clientID: 2)
        h.request(Self.lock(1), from: a)
        #expect(a.response(1)?.value?["lease_ms"]?.int64Value == 300)
        // The default lease ends the lock by itself: b's waiting request then runs.
        h.request(Self.transact(1, waitMs: 10_000), from: b)
        #expect(frameTexts(b.response(1)?.value) == ["r1"])
        h.request(Self.lock(2, extra: #","lease_ms":1001"#), from: a)
        let e = Self.error(a.response(2))
        #expect(e?.errorCode == .invalidParams, "\(String(describing: e))")
        #expect(e?.data?["limit"] == "max_lease_ms")
        #expect(e?.message.contains("limits.max_lease_ms") == true)
        h.request(Self.lock(3, extra: #","lease_ms":1000"#), from: a)
        #expect(a.response(3)?.value?["lease_ms"]?.int64Value == 1000)
    }

    @Test("a client waits for a lock once per accessory: a second wait is refused")
    func oneLockWaitPerClient() throws {
        let (h, a, b) = try Self.echoLocked()
        h.request(Self.lock(1, extra: #","timeout_ms":10000"#), from: b)
        h.request(Self.lock(2, extra: #","timeout_ms":10000"#), from: b)
        #expect(Self.error(b.response(2))?.errorCode == .queueFull)
        #expect(Self.error(b.response(2))?.data?["reason"] == "already_waiting_for_lock")
        #expect(b.response(1, seconds: 0.1) == nil)
        h.request(Self.unlock(2), from: a)
        #expect(b.response(1)?.value?["locked"] == true)
    }
}
