import AccessorySimulator
import AccessoryTestSupport
import ControlProtocol
import Testing

@testable import AccessoryCore

/// A `cancel` takes effect on a later loop turn, so something else may end the request first.
/// Its `{cancelled}` must say what happened to the request, not what was asked (the soak found a
/// `cancelled: true` whose request was answered `device_removed`).
@Suite("cancel racing other endings")
struct CancelRaceTests {
    /// An accessory that answers after 3 s, and request 1 executing on it (sent, answer due).
    static func executingRequest() throws -> (CoreHarness, RecordingOrigin) {
        var sim = SimulatorConfiguration(name: "slow")
        sim.responseDelay = .milliseconds(3000)
        let yaml = """
            accessories:
              - name: slow
                path: {sim:slow}
                framing: {type: line, delimiter: "\\n"}
                response: {timeout_ms: 5000}
            """
        let h = try CoreHarness(sims: ["slow": sim], yaml: yaml)
        #expect(h.waitReady("slow"))
        let c = RecordingOrigin(clientID: 1)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"slow","data":"m1"}}"#, from: c)
        let registry = h.registry
        let executing = Wait.until {
            Wait.onLoop(h.loop) { registry.accessory(named: "slow")?.claimant != nil } == true
        }
        #expect(executing, "request 1 is executing")
        return (h, c)
    }

    @Test("a cancel that loses to a removal already ending the request reports cancelled: false")
    func cancelLosingToRemoval() throws {
        let (h, c) = try CancelRaceTests.executingRequest()
        let registry = h.registry
        let cancel = try Request.decode(Array(#"{"jsonrpc":"2.0","id":2,"method":"cancel","params":{"id":1}}"#.utf8))
        // In one loop turn: the accessory goes away, and its queue's drain starts cancelling
        // request 1 with `device_removed` (delivered on a later turn); then the client's cancel
        // arrives, before that delivery.
        _ = Wait.onLoop(h.loop) {
            registry.accessory(named: "slow")?.deviceGone("unplugged by the test")
            registry.handle(cancel, from: c)
        }
        #expect(c.response(1)?.errorCode == .deviceRemoved)
        #expect(c.response(2)?.value?["cancelled"] == .bool(false))
        #expect(c.duplicates == 0)
    }

    @Test("a cancel that wins reports cancelled: true and the request is answered cancelled")
    func cancelWinning() throws {
        let (h, c) = try CancelRaceTests.executingRequest()
        h.request(#"{"jsonrpc":"2.0","id":2,"method":"cancel","params":{"id":1}}"#, from: c)
        #expect(c.response(1)?.errorCode == .cancelled)
        #expect(c.response(2)?.value?["cancelled"] == .bool(true))
        #expect(c.duplicates == 0)
    }
}
