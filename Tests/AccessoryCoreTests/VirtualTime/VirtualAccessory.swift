import AccessoryConfig
import AccessoryTestSupport
import ControlProtocol
import IOLoop
import JSONCodec

@testable import AccessoryCore

/// One accessory on an ``EmbeddedLoop`` with a ``FakeDeviceOpener``: its whole request path
/// (admission, queue, write, frames, reply, deadline, resync, reopen) on virtual time, with no
/// pty and no thread. Test thread only.
final class VirtualAccessory {
    let loop = EmbeddedLoop()
    let opener = FakeDeviceOpener()
    let accessory: Accessory
    let client = RecordingOrigin(clientID: 1)
    /// The state changes the accessory announced, as "state (reason)".
    private(set) var announced: [String] = []
    private var nextID: Int64 = 1

    /// `extra` is YAML added to the accessory `echo` (a line-framed tty at a made-up path).
    init(_ extra: String = "") throws {
        let yaml = """
            accessories:
              - name: echo
                path: /dev/virtual-echo
                framing: {type: line, delimiter: "\\n"}
                response: {timeout_ms: 1000}
                reconnect: {initial_ms: 100, max_ms: 100}
            \(extra.isEmpty ? "" : "    " + extra)
            """
        let configuration = try ConfigurationLoader.load(yaml: yaml, file: "virtual.yaml")
        accessory = Accessory(
            settings: configuration.accessories[0],
            devicePath: "/dev/virtual-echo",
            loop: loop,
            opener: opener,
            limits: configuration.limits
        )
        accessory.onStateChange = { [unowned self] a in announced.append("\(a.state.rawValue) (\(a.stateReason))") }
        accessory.open()
        loop.run()
    }

    deinit {
        accessory.onStateChange = nil  // it reaches this object, which is going
        accessory.shutDown(error: .unavailable(device: "echo", state: .disabled, reason: "test over"))
        loop.run()
    }

    /// The device now open (the last the opener made).
    var device: FakeChannel { opener.current! }

    /// Submits a request as the registry does; returns its id.
    @discardableResult
    func submit(_ kind: RequestOperation.Kind, timeoutMs: Int? = nil) -> (id: Int64, op: RequestOperation) {
        let id = nextID
        nextID += 1
        let op = RequestOperation(
            accessory: accessory,
            kind: kind,
            timeoutMs: accessory.responseTimeoutMs(requested: timeoutMs),
            requestID: .int(id),
            origin: client
        )
        accessory.submit(op, waitMs: nil)
        loop.run()
        return (id, op)
    }

    @discardableResult
    func transact(_ text: String, timeoutMs: Int? = nil) -> (id: Int64, op: RequestOperation) {
        submit(.transact(Array(text.utf8)), timeoutMs: timeoutMs)
    }

    /// The answer to `id` so far, without waiting (nothing runs unless the test runs the loop).
    func answer(_ id: Int64) -> Result<JSONValue, RPCError>? { client.answered(id) }

    func advance(ms: Int) { loop.advanceTime(by: .milliseconds(ms)) }

    var counters: DeviceStatusResult.Counters { accessory.counters.status }
}
