import AccessoryConfig
import AccessoryCore
import AccessorySimulator
import AccessoryTestSupport
import ControlProtocol
import Glibc
import IOLoop
import JSONCodec
import Testing

@Suite("locks and access")
struct LockAndAccessTests {
    @Test("a lock makes other clients' requests with wait_ms wait until unlock; the holder's go through")
    func lockHoldsOthers() throws {
        let h = try CoreHarness(sims: ["echo": SimulatorConfiguration(name: "echo")], yaml: RequestTests.echoYAML)
        #expect(h.waitReady("echo"))
        let a = RecordingOrigin(clientID: 1)
        let b = RecordingOrigin(clientID: 2)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"lock","params":{"device":"echo"}}"#, from: a)
        #expect(c(a, 1)?["locked"] == .bool(true))
        h.request(
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"echo","data":"b-waits","wait_ms":10000}}"#,
            from: b
        )
        h.request(#"{"jsonrpc":"2.0","id":2,"method":"transact","params":{"device":"echo","data":"a-goes"}}"#, from: a)
        #expect(frameTexts(a.response(2)?.value) == ["a-goes"])
        #expect(b.response(1, seconds: 0.3) == nil, "b waits while a holds the lock")
        // b can neither unlock nor bypass.
        h.request(#"{"jsonrpc":"2.0","id":2,"method":"unlock","params":{"device":"echo"}}"#, from: b)
        #expect(b.response(2)?.errorCode == .permissionDenied)
        h.request(#"{"jsonrpc":"2.0","id":3,"method":"unlock","params":{"device":"echo"}}"#, from: a)
        #expect(c(a, 3)?["unlocked"] == .bool(true))
        #expect(frameTexts(b.response(1)?.value) == ["b-waits"])
    }

    @Test("a lease expires by itself; a holder that leaves releases the lock")
    func leaseAndDisconnect() throws {
        let h = try CoreHarness(sims: ["echo": SimulatorConfiguration(name: "echo")], yaml: RequestTests.echoYAML)
        #expect(h.waitReady("echo"))
        let a = RecordingOrigin(clientID: 1)
        let b = RecordingOrigin(clientID: 2)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"lock","params":{"device":"echo","lease_ms":200}}"#, from: a)
        #expect(c(a, 1)?["locked"] == .bool(true))
        h.request(
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"echo","data":"after-lease","wait_ms":10000}}"#,
            from: b
        )
        #expect(frameTexts(b.response(1)?.value) == ["after-lease"])
        h.request(#"{"jsonrpc":"2.0","id":2,"method":"lock","params":{"device":"echo"}}"#, from: a)
        #expect(c(a, 2)?["locked"] == .bool(true))
        h.request(
            #"{"jsonrpc":"2.0","id":2,"method":"transact","params":{"device":"echo","data":"after-leave","wait_ms":10000}}"#,
            from: b
        )
        #expect(b.response(2, seconds: 0.2) == nil)
        h.registry.clientLeft(a)
        #expect(frameTexts(b.response(2)?.value) == ["after-leave"])
    }

    @Test("access lists: a client not listed gets 1001 as for a missing accessory and does not see it in devices.list")
    func permissionDenied() throws {
        let yaml = """
            accessories:
              - name: echo
                path: {sim:echo}
                access: {users: [0]}
              - name: open
                path: {sim:open}
            """
        let h = try CoreHarness(
            sims: ["echo": SimulatorConfiguration(name: "echo"), "open": SimulatorConfiguration(name: "open")],
            yaml: yaml
        )
        #expect(h.waitReady("echo"))
        let nobody = RecordingOrigin(clientID: 5, uid: 65534, gid: 65534)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"echo","data":"x"}}"#, from: nobody)
        #expect(nobody.response(1)?.errorCode == .unknownDevice)
        h.request(#"{"jsonrpc":"2.0","id":2,"method":"devices.list"}"#, from: nobody)
        let names = (c(nobody, 2)?["devices"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
        #expect(names == ["open"])
        let root = RecordingOrigin(clientID: 6)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"devices.list"}"#, from: root)
        #expect((c(root, 1)?["devices"]?.arrayValue ?? []).count == 2)
    }

    private func c(_ o: RecordingOrigin, _ id: Int64) -> JSONValue? { o.response(id)?.value }
}
