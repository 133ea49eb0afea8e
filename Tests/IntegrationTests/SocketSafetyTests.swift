import AccessoryTestSupport
import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// The daemon's socket file against the built daemon: a directory it may not write, a second
/// daemon on a live socket, a stale socket left by a killed daemon.
///
/// Threading: each test runs on its own test thread and owns its scenario's processes.
@Suite struct SocketSafetyTests {
    static let setpriv = ExternalProgram.locate("setpriv")
    static var asNobody: [String] { [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"] }

    static var notRootReason: String? {
        if getuid() != 0 { return "running the daemon as another uid with setpriv needs root" }
        if let missing = ExternalProgram.missing("setpriv") { return missing }
        return nil
    }

    /// Runs the built daemon on `config` to completion (bounded), under `launcher`.
    static func runToEnd(
        _ s: Scenario,
        config: String,
        launcher: [String] = [],
        tag: String
    ) throws -> (status: ChildProcess.Termination?, output: String) {
        let daemon = try BuiltProducts.daemon()
        let arguments = ["--config", config, "--runtime-dir", s.runtimeDirectory]
        let child = try ChildRun(
            label: "accessoryd \(tag)",
            executable: launcher.first ?? daemon,
            arguments: launcher.isEmpty ? arguments : Array(launcher.dropFirst()) + [daemon] + arguments,
            stdoutPath: s.directory.file("\(tag).out"),
            stderrPath: s.directory.file("\(tag).out")
        )
        let ended = child.wait(seconds: 20)
        if ended == nil {
            child.kill()
            Issue.record("accessoryd (\(tag)) was still running after 20 s")
        }
        return (ended, child.stdout)
    }

    @Test(.enabled(if: notRootReason == nil, "\(notRootReason ?? "")"))
    func aSocketInADirectoryTheDaemonMayNotWriteIsAClearErrorAndExitNonZero() throws {
        let s = try Scenario()
        defer { s.finish() }
        // Root's folder, mode 0755: uid 65534 can enter it but not create anything in it.
        let locked = s.directory.file("locked")
        try #require(mkdir(locked, 0o755) == 0)
        s.socketPath = locked + "/accessoryd.sock"
        let run = s.directory.file("run")
        try #require(mkdir(run, 0o700) == 0 && chown(run, 65534, 65534) == 0)
        s.runtimeDirectory = run
        let config = try s.directory.write("accessoryd.yaml", s.configuration(accessories: []))
        let r = try Self.runToEnd(s, config: config, launcher: Self.asNobody, tag: "unwritable")
        print("socket in an unwritable directory: \(String(describing: r.status)); says: \(r.output)")
        #expect(r.status != nil && r.status != .exited(0))
        #expect(r.output.contains(s.socketPath), "\(r.output)")
        #expect(r.output.lowercased().contains("permission denied"), "\(r.output)")
        #expect(access(s.socketPath, F_OK) != 0)
    }

    @Test func aLiveSocketIsRefusedAndAStaleOneIsReplaced() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(accessories: [s.lineAccessory("echo")])
        let config = s.directory.file("accessoryd.yaml")

        // A second daemon on the same socket: refused, and the first is untouched.
        let second = try Self.runToEnd(s, config: config, tag: "second")
        print("second daemon on a live socket: \(String(describing: second.status)); says: \(second.output)")
        #expect(second.status != nil && second.status != .exited(0))
        #expect(second.output.contains(s.socketPath), "\(second.output)")
        #expect(second.output.contains("in use") || second.output.contains("another"), "\(second.output)")
        let client = try s.connect()
        #expect(try client.call("transact", Params.transfer("echo", "first")).frameTexts == ["first"])
        client.close()

        // The first daemon dies without cleaning up: its socket file stays, nobody listens.
        let first = try #require(s.daemon)
        first.child.kill()
        #expect(access(s.socketPath, F_OK) == 0, "the killed daemon's socket file is gone")
        #expect(throws: SyscallError.self) { _ = try s.connect() }
        // A new daemon replaces the stale file and serves.
        try s.startDaemon(accessories: [s.lineAccessory("echo")])
        let again = try s.connect()
        #expect(try again.call("transact", Params.transfer("echo", "replaced")).frameTexts == ["replaced"])
        again.close()
    }
}
