import AccessoryConfig
import AccessoryCore
import AccessorySimulator
import AccessoryTestSupport
import Glibc
import IOLoop
import JSONCodec
import SystemCalls
import Transports

@testable import ControlProtocol

/// Records what the registry answers and notifies, for one pretend client. Any thread.
final class RecordingOrigin: RequestOrigin, @unchecked Sendable {  // @unchecked: state is in a Locked.
    let clientID: UInt64
    let uid: uid_t
    let gid: gid_t
    let groups: [gid_t]
    private let state = Locked<
        (
            responses: [RequestID: Result<[UInt8], RPCError>], notifications: [[UInt8]], duplicates: Int,
            disconnects: [String]
        )
    >(
        ([:], [], 0, [])
    )

    init(clientID: UInt64, uid: uid_t = 0, gid: gid_t = 0, groups: [gid_t] = []) {
        self.clientID = clientID
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    func respond(id: RequestID, result: Result<any JSONEncodable & Sendable, RPCError>) {
        let encoded: Result<[UInt8], RPCError> = result.map { r in
            var b: [UInt8] = []
            r.encodeJSON(into: &b)
            return b
        }
        state.withLock { s in
            if s.responses[id] != nil { s.duplicates += 1 }
            s.responses[id] = encoded
        }
    }

    func notify(line: [UInt8]) { state.withLock { $0.notifications.append(line) } }
    // Raw sessions are tested end to end (IntegrationTests/RawAttachTests) with a real connection.
    func beginRaw(input: @escaping @Sendable ([UInt8]) -> Void) {}
    func pauseRawInput(_ paused: Bool) {}
    func disconnect(reason: String) { state.withLock { $0.disconnects.append(reason) } }

    var duplicates: Int { state.withLock { $0.duplicates } }
    var notifications: [[UInt8]] { state.withLock { $0.notifications } }
    var disconnectReasons: [String] { state.withLock { $0.disconnects } }

    /// The response to `id` if there is one now, as parsed JSON (no waiting: for virtual time).
    func answered(_ id: Int64) -> Result<JSONValue, RPCError>? {
        state.withLock { $0.responses[.int(id)] }?.map { try! JSONParser.parse($0) }
    }

    /// Waits (bounded) for the response to `id`; the result as parsed JSON.
    func response(_ id: Int64, seconds: Double = 10) -> Result<JSONValue, RPCError>? {
        var out: Result<[UInt8], RPCError>?
        Wait.until(seconds: seconds) {
            out = state.withLock { $0.responses[.int(id)] }
            return out != nil
        }
        return out?.map { try! JSONParser.parse($0) }
    }
}

/// A device loop, a registry built from YAML, and in-process simulated accessories.
final class CoreHarness: @unchecked Sendable {  // @unchecked: fields are set in init and only read after.
    let loop: IOLoop
    let registry: AccessoryRegistry
    var simulators: [SimulatedAccessory] = []
    let dir: String
    /// What the registry logged, in order (any thread).
    let logged: Locked<[String]>

    /// `yaml` may use `{sim:NAME}` for the path of simulator NAME from `sims`; `rfcommDriver`
    /// stands in for Bluetooth sockets (`rfcomm` accessories).
    init(sims: [String: SimulatorConfiguration], yaml: String, rfcommDriver: RFCOMMSocketDriver = .bluetooth) throws {
        loop = try IOLoop.spawn(name: "core-test")
        dir = try FileIO.makeTemporaryDirectory(prefix: "/tmp/accessoryd-core-")
        var text = yaml
        for (name, var config) in sims {
            config.linkPath = "\(dir)/\(name)"
            let sim = try SimulatedAccessory.start(config, on: loop)
            simulators.append(sim)
            text = text.replacingOccurrences(of: "{sim:\(name)}", with: "\(dir)/\(name)")
        }
        let configuration = try ConfigurationLoader.load(yaml: text, file: "test.yaml")
        let logged = Locked<[String]>([])
        self.logged = logged
        registry = AccessoryRegistry(
            loop: loop,
            configuration: configuration,
            devicePaths: [:],
            rfcommDriver: rfcommDriver
        ) { _, message in logged.withLock { $0.append(message) } }
        let r = registry
        loop.perform { r.start() }
    }

    /// Reloads the registry with `yaml` (`{sim:NAME}` substituted as in init), on the loop.
    func reload(_ yaml: String) throws -> ReloadSummary {
        var text = yaml
        for s in simulators {
            text = text.replacingOccurrences(
                of: "{sim:\(s.configuration.name)}",
                with: "\(dir)/\(s.configuration.name)"
            )
        }
        let configuration = try ConfigurationLoader.load(yaml: text, file: "reload.yaml")
        let r = registry
        return Wait.onLoop(loop) { r.reload(configuration, devicePaths: [:]) }!
    }

    func request(_ line: String, from origin: RecordingOrigin) {
        let request = try! Request.decode(Array(line.utf8))
        registry.handle(request, from: origin)
    }

    /// The state of accessory `name`, read on the loop.
    func state(_ name: String) -> DeviceState? {
        let r = registry
        return Wait.onLoop(loop) { r.accessory(named: name)?.state }.flatMap { $0 }
    }

    func waitReady(_ name: String, seconds: Double = 10) -> Bool {
        Wait.until(seconds: seconds) { self.state(name) == .ready }
    }

    deinit {
        let r = registry
        _ = Wait.onLoop(loop) { r.shutdown() }
        for s in simulators { s.stop() }
        loop.shutdown()
        // What tests left in it (a trace file), then the folder: a folder that is not empty
        // would stay in /tmp after every run.
        for name in (try? FileIO.listDirectory(dir)) ?? [] { try? FileIO.unlink(dir + "/" + name) }
        _ = try? FileIO.removeDirectory(dir)
    }
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        var out = ""
        var rest = Substring(self)
        while let r = rest.firstRange(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}

extension Result where Success == JSONValue, Failure == RPCError {
    var value: JSONValue? { try? get() }
    var errorCode: ErrorCode? {
        if case .failure(let e) = self { return e.errorCode }
        return nil
    }
}

func frameTexts(_ v: JSONValue?) -> [String] {
    (v?["frames"]?.arrayValue ?? []).compactMap { $0["data"]?.stringValue }
}
