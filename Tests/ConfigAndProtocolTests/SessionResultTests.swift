import ControlProtocol
import JSONCodec
import Testing

/// The typed results of `lock`, `unlock`, `attach`, `subscribe`/`unsubscribe` and
/// `client.disconnect` write exactly what the daemon wrote before they were typed: the same
/// objects, built as `JSONValue`s, are the reference.
@Suite("lock, subscription and session results")
struct SessionResultTests {
    func encoded(_ value: some JSONEncodable) -> String {
        var buffer: [UInt8] = []
        value.encodeJSON(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// A device name that needs escaping, to show the name goes through the string encoder.
    let device = "dev \"1\"\u{1}é"

    @Test("lock and unlock")
    func lockAndUnlock() {
        let lock: JSONObject = ["locked": true, "device": .string(device), "lease_ms": .int(30_000)]
        #expect(encoded(LockResult(device: device, leaseMs: 30_000)) == encoded(JSONValue.object(lock)))
        #expect(encoded(LockResult(device: "gps", leaseMs: 5)) == #"{"locked":true,"device":"gps","lease_ms":5}"#)
        let unlock: JSONObject = ["unlocked": true, "device": .string(device)]
        #expect(encoded(UnlockResult(device: device)) == encoded(JSONValue.object(unlock)))
    }

    @Test("attach and client.disconnect")
    func attachAndDisconnect() {
        let attach: JSONObject = ["attached": true, "device": .string(device), "session": "5f0c"]
        #expect(encoded(AttachResult(device: device, session: "5f0c")) == encoded(JSONValue.object(attach)))
        let gone: JSONObject = ["disconnected": true, "id": .integer(Int64.max)]
        #expect(encoded(DisconnectResult(id: Int64.max)) == encoded(JSONValue.object(gone)))
    }

    @Test("subscriptions: devices and events sorted, all, or none left")
    func subscriptions() {
        #expect(encoded(SubscriptionResult.unsubscribed) == #"{"subscribed":false}"#)
        let some = SubscriptionResult.subscribed(devices: ["b", device, "a"], events: [.state, .data])
        var o: JSONObject = ["subscribed": true]
        o.append("devices", .array(["a", "b", device].sorted().map(JSONValue.string)))
        o.append("events", .array(["data", "state"].map(JSONValue.string)))
        #expect(encoded(some) == encoded(JSONValue.object(o)))
        let all = SubscriptionResult.subscribed(devices: nil, events: [.lines])
        #expect(encoded(all) == #"{"subscribed":true,"devices":"all","events":["lines"]}"#)
        #expect(
            encoded(SubscriptionResult.subscribed(devices: [], events: []))
                == #"{"subscribed":true,"devices":[],"events":[]}"#
        )
    }
}
