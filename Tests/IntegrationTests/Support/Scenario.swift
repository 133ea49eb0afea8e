import ControlProtocol
import Glibc
import JSONCodec
import SystemCalls
import Testing

/// One test's world: a temporary folder, the `accessory-sim` children it started, a YAML
/// configuration and the `accessoryd` child running on it.
///
/// Use it as `let s = try Scenario(); defer { s.finish() }`: ``finish()`` stops the daemon with
/// SIGTERM and expects exit status 0 (recording the daemon's log otherwise), stops the
/// simulators and removes the folder, whether or not the test got that far.
///
/// Threading: the test's thread.
final class Scenario {
    let directory: TemporaryDirectory
    private(set) var simulators: [SimulatorRun] = []
    private(set) var daemon: DaemonRun?
    private var finished = false
    private var daemonStopped = false

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// Where the configuration puts the socket (the folder, unless a test moves it).
    lazy var socketPath: String = directory.file("accessoryd.sock")
    /// The daemon's `--runtime-dir` (the folder, unless a test moves it).
    lazy var runtimeDirectory: String = directory.path
    /// What runs the daemon (`setpriv …`, `prlimit …`, `strace …`); nothing by default.
    var launcher: [String] = []

    /// Starts `accessory-sim --name name --link <folder>/name` plus `arguments`; returns the link.
    @discardableResult
    func simulator(_ name: String, _ arguments: [String] = ["--personality", "echo"]) throws -> String {
        let run = try SimulatorRun(name: name, arguments: arguments, in: directory)
        simulators.append(run)
        return run.link
    }

    func simulator(named name: String) -> SimulatorRun? { simulators.first { $0.name == name } }

    /// An accessory on `path` (default: the simulator link of the same name) with line framing
    /// (default: `\n`), and `extra` flow-mapping members (e.g. `response: {timeout_ms: 300}`).
    func lineAccessory(
        _ name: String,
        path: String? = nil,
        framing: String = #"{type: line, delimiter: "\n"}"#,
        _ extra: String = ""
    ) -> String {
        let target = path ?? directory.file(name)
        return "  - {name: \(name), path: \(target), framing: \(framing)" + (extra.isEmpty ? "" : ", " + extra) + "}"
    }

    /// The configuration text: the socket in the folder (mode 0666), `limits`, the accessories;
    /// and `threads.control` from `ACCESSORYD_IT_CONTROL_THREAD` when set (`make test` runs this
    /// suite once more with `own`, the two-thread layout). `sections` is more top-level YAML
    /// (e.g. a `hotplug:` block), each line ending with a newline.
    func configuration(limits: [(String, Int)] = [], accessories: [String], sections: String = "") -> String {
        var text = "socket:\n  path: \(socketPath)\n  mode: \"0666\"\n" + sections
        if let placement = getenv("ACCESSORYD_IT_CONTROL_THREAD").map({ String(cString: $0) }) {
            text += "threads:\n  control: \(placement)\n"
        }
        if !limits.isEmpty {
            text += "limits:\n" + limits.map { "  \($0.0): \($0.1)\n" }.joined()
        }
        text += "accessories:\n" + accessories.map { $0 + "\n" }.joined()
        return text
    }

    /// Writes the configuration (`sections`: more top-level YAML), starts the daemon on it (with
    /// `environment` added to ours), and waits until `ready` accessories (default: every simulator
    /// started so far) are ready.
    func startDaemon(
        limits: [(String, Int)] = [],
        accessories: [String],
        ready: [String]? = nil,
        environment: [String: String]? = nil,
        sections: String = ""
    ) throws {
        let path = try directory.write(
            "accessoryd.yaml",
            configuration(limits: limits, accessories: accessories, sections: sections)
        )
        daemon = try DaemonRun(
            configPath: path,
            socketPath: socketPath,
            in: directory,
            environment: environment,
            runtimeDirectory: runtimeDirectory,
            launcher: launcher
        )
        try waitUntilReady(ready ?? simulators.map(\.name))
    }

    /// Adopts a daemon started some other way (e.g. under `systemd-socket-activate`), so that
    /// ``finish()`` stops it like one started by ``startDaemon(limits:accessories:ready:environment:)``.
    func adopt(_ run: DaemonRun) { daemon = run }

    func connect() throws -> RPCClient { try RPCClient(socketPath: socketPath) }

    /// Polls `devices.list` (bounded) until every accessory in `names` is ready.
    func waitUntilReady(_ names: [String], seconds: Double = 15) throws {
        guard !names.isEmpty else { return }
        let client = try connect()
        defer { client.close() }
        let deadline = Deadline(seconds: seconds)
        var states: [String: String] = [:]
        while true {
            let list = try client.result("devices.list")
            for device in list["devices"]?.arrayValue ?? [] {
                if let name = device["name"]?.stringValue { states[name] = device["state"]?.stringValue }
            }
            if names.allSatisfy({ states[$0] == "ready" }) { return }
            if deadline.hasPassed {
                throw HarnessError("accessories not ready within \(seconds) s: \(states); log:\n\(log)")
            }
            usleep(10_000)
        }
    }

    /// The state of accessory `name` in `devices.list`.
    func state(of name: String, via client: RPCClient) throws -> String? {
        let list = try client.result("devices.list")
        return list["devices"]?.arrayValue?.first { $0["name"]?.stringValue == name }?["state"]?.stringValue
    }

    var log: String { daemon?.log ?? "" }

    /// Sends SIGTERM to the daemon and waits (bounded) for it; records an issue unless it exits 0.
    @discardableResult
    func stopDaemon(sourceLocation: SourceLocation = #_sourceLocation) -> ChildProcess.Termination? {
        guard let daemon, !daemonStopped else { return daemon?.child.termination }
        daemonStopped = true
        if let ended = daemon.child.poll() {
            Issue.record(
                "accessoryd had already ended (\(ended)); its log:\n\(daemon.log)",
                sourceLocation: sourceLocation
            )
            return ended
        }
        // Under a launcher that forks (strace), the daemon is the launcher's child.
        let target = launcher.first?.hasSuffix("strace") == true ? daemon.child.children.first : nil
        let ended = daemon.child.terminate(seconds: 10, signalling: target)
        if ended != .exited(0) {
            let outcome = ended.map { "\($0)" } ?? "still running after 10 s"
            Issue.record(
                "accessoryd after SIGTERM: \(outcome); its log:\n\(daemon.log)",
                sourceLocation: sourceLocation
            )
            daemon.child.kill()
        }
        return ended
    }

    /// Stops the daemon (expecting exit 0), then the simulators, and removes the folder. Safe to
    /// call after a failure; does nothing the second time.
    func finish(sourceLocation: SourceLocation = #_sourceLocation) {
        guard !finished else { return }
        finished = true
        stopDaemon(sourceLocation: sourceLocation)
        for sim in simulators where sim.child.terminate(seconds: 10) == nil {
            Issue.record("accessory-sim \(sim.name) ignored SIGTERM", sourceLocation: sourceLocation)
            sim.child.kill()
        }
        directory.remove()
    }
}

/// Request params, written the way tests read best. Any thread (pure functions).
enum Params {
    static func device(_ name: String) -> JSONValue { ["device": .string(name)] }

    static func transfer(_ device: String, _ text: String, timeoutMs: Int? = nil, waitMs: Int? = nil) -> JSONValue {
        var object: JSONObject = ["device": .string(device), "data": .string(text)]
        if let timeoutMs { object.append("timeout_ms", .int(timeoutMs)) }
        if let waitMs { object.append("wait_ms", .int(waitMs)) }
        return .object(object)
    }
}
