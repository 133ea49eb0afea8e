import AccessoryConfig
import AccessoryCore
import AccessorySimulator
import AccessoryTestSupport
import ControlProtocol
import Glibc
import IOLoop
import SystemCalls
import Testing

/// `clients.list` and `client.disconnect` in the registry (end to end, with real processes and
/// users, in IntegrationTests/AdministratorTests).
@Suite("administrator")
struct AdministratorTests {
    @Test func rootListsClientsAndWhatTheyHoldOthersAreRefused() throws {
        let h = try LineControlTests.harness()
        let root = RecordingOrigin(clientID: 1)
        let holder = RecordingOrigin(clientID: 2, uid: 65534, gid: 65534)
        for c in [root, holder] { h.registry.clientJoined(c) }
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"lock","params":{"device":"echo"}}"#, from: holder)
        #expect(holder.response(1)?.value?["locked"] == .bool(true))

        h.request(#"{"jsonrpc":"2.0","id":1,"method":"clients.list"}"#, from: root)
        let list = root.response(1)?.value?["clients"]?.arrayValue ?? []
        #expect(list.map { $0["id"] } == [.integer(1), .integer(2)])
        #expect(list.last?["uid"] == .integer(65534))
        #expect(list.last?["locks"] == .array([.string("echo")]))
        #expect(list.last?["attached"]?.isNull == true)
        #expect(list.first?["locks"] == .array([]))

        for (id, method) in [(2, "clients.list"), (3, "client.disconnect")] {
            let params = method == "clients.list" ? "" : #","params":{"id":1}"#
            h.request(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)"\#(params)}"#, from: holder)
            let refused = holder.response(Int64(id))
            #expect(refused?.errorCode == .permissionDenied)
            #expect(refused?.failureMessage == "\(method) is for root and the daemon's own user only")
        }
    }

    @Test func kickingTheLockHolderServesTheNextClient() throws {
        let h = try LineControlTests.harness()
        let root = RecordingOrigin(clientID: 1)
        let holder = RecordingOrigin(clientID: 2)
        let waiter = RecordingOrigin(clientID: 3)
        for c in [root, holder, waiter] { h.registry.clientJoined(c) }
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"lock","params":{"device":"echo"}}"#, from: holder)
        #expect(holder.response(1)?.value?["locked"] == .bool(true))
        h.request(
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"echo","data":"mine","wait_ms":10000}}"#,
            from: waiter
        )
        #expect(waiter.response(1, seconds: 0.3) == nil, "parked behind the lock")

        h.request(#"{"jsonrpc":"2.0","id":1,"method":"client.disconnect","params":{"id":2}}"#, from: root)
        #expect(root.response(1)?.value?["disconnected"] == .bool(true))
        #expect(holder.disconnectReasons == ["disconnected by an administrator (uid 0)"])
        #expect(frameTexts(waiter.response(1)?.value) == ["mine"])

        h.request(#"{"jsonrpc":"2.0","id":2,"method":"client.disconnect","params":{"id":99}}"#, from: root)
        #expect(root.response(2)?.failureMessage == "no client with id 99 is connected (see clients.list)")
    }
}
