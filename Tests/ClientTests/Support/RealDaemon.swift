import AccessoryClient
import AccessoryTestSupport
import Glibc
import SystemCalls

/// The built `accessoryd` (next to the test binary, as ``CtlProcess/executable``) on simulated
/// accessories in a temporary folder: started, stopped by pid with SIGTERM (as
/// `systemctl restart` stops it) and started again on the same socket path.
///
/// Threading: the test's task; it owns the child (signalled and reaped by pid).
final class RealDaemon {
    let folder: TestFolder
    var socketPath: String { folder.file("accessoryd.sock") }
    private(set) var pid: pid_t = 0
    private let names: [String]

    /// `accessoryd` next to the test binary, if built.
    static let executable: String? = CtlProcess.executable.map {
        String($0.dropLast("accessoryctl".count)) + "accessoryd"
    }
    .flatMap { access($0, X_OK) == 0 ? $0 : nil }
    static let notBuilt = "accessoryd and accessoryctl are not built next to the tests (swift build)"

    /// A daemon on `accessories`: name and accessory-sim echo options (`delay_ms: 1500`).
    init(echoes accessories: [(name: String, simulate: String)]) async throws {
        folder = try TestFolder()
        names = accessories.map(\.name)
        var config = "socket:\n  path: \(folder.file("accessoryd.sock"))\n  mode: \"0600\"\naccessories:\n"
        for (name, options) in accessories {
            let simulate = (["personality: echo"] + (options.isEmpty ? [] : [options])).joined(separator: ", ")
            config += "  - {name: \(name), simulate: {\(simulate)}, framing: {type: line, delimiter: \"\\n\"}}\n"
        }
        try FileIO.writeFile(folder.file("accessoryd.yaml"), config)
        try await start()
    }

    /// Starts accessoryd and waits (bounded) until every accessory is ready.
    func start() async throws {
        guard let executable = Self.executable else { throw DaemonFailed(Self.notBuilt) }
        let output = try FileIO.open(folder.file("accessoryd.log"), flags: O_WRONLY | O_CREAT | O_APPEND, mode: 0o600)
        let launched = Result { () throws(SyscallError) -> pid_t in
            try ChildProcess.launch(
                executable,
                arguments: ["--config", folder.file("accessoryd.yaml"), "--runtime-dir", folder.path],
                standardInput: nil,
                standardOutput: output.rawValue,
                standardError: output.rawValue
            )
        }
        output.close()
        pid = try launched.get()
        let path = socketPath
        let wanted = names
        let ready = await Wait.until(seconds: 30) {
            access(path, F_OK) == 0
        }
        guard ready else { throw DaemonFailed("no socket within 30 s\n\(self.log)") }
        for _ in 0..<3000 {
            if let connection = try? await AccessoryConnection.connect(socketPath: path, reconnect: .never) {
                let devices = (try? await connection.listDevices()) ?? []
                connection.close()
                if wanted.allSatisfy({ name in devices.contains { $0.name == name && $0.state == .ready } }) { return }
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw DaemonFailed("not ready within 30 s\n\(self.log)")
    }

    /// `signal` (SIGTERM: a graceful stop; SIGKILL: a crash), then waits (bounded: SIGKILL
    /// after 10 s) for the exit. The folder stays. Polls a real process, so it sleeps between
    /// looks. (Its simulators end with it: they are tied to it with `PR_SET_PDEATHSIG`.)
    @discardableResult
    func halt(_ signal: CInt = SIGTERM) -> ChildProcess.Termination? {
        guard pid > 0 else { return nil }
        defer { pid = 0 }
        try? ChildProcess.signal(pid, signal)
        for _ in 0..<1000 {
            if let end = try? ChildProcess.wait(pid, block: false) { return end }
            usleep(10_000)
        }
        try? ChildProcess.signal(pid, SIGKILL)
        return try? ChildProcess.wait(pid, block: true)
    }

    /// Stops the daemon and removes the folder.
    func stop() {
        halt()
        folder.remove(["accessoryd.sock", "accessoryd.yaml", "accessoryd.log"])
    }

    var log: String {
        (try? FileIO.readFile(folder.file("accessoryd.log"))).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}

/// The daemon did not start as the test needs.
///
/// Threading: a value. Any thread.
struct DaemonFailed: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
