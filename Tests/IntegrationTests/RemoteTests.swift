import AccessoryTestSupport
import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// `accessoryctl --host ssh://…` end to end, through a real OpenSSH server started for each test
/// on 127.0.0.1 (``SSHServer``: a throwaway host key and user key; the user is whoever runs the
/// tests). The remote command is the built accessoryctl with `--socket` naming the test daemon's
/// socket, run by sshd as the logged-in user: ssh → sshd → `accessoryctl dial-stdio` → the daemon.
///
/// Threading: the test's thread; it owns sshd, the daemon, the simulators and the clients.
@Suite(.serialized) struct RemoteTests {
    static var unavailableReason: String? { SSHServer.unavailableReason }

    /// One test's world: a daemon with accessories, an sshd, and how to run accessoryctl
    /// through it.
    ///
    /// Threading: the test's thread.
    final class World {
        let scenario: Scenario
        let sshd: SSHServer
        let ctl: String

        init(configure: (Scenario) throws -> Void) throws {
            scenario = try Scenario()
            do {
                try configure(scenario)
                sshd = try SSHServer()
            } catch {
                scenario.finish()
                throw error
            }
            do {
                ctl = try BuiltProducts.executable("accessoryctl")
            } catch {
                sshd.stop()
                scenario.finish()
                throw error
            }
        }

        /// The arguments that reach the test daemon through ssh; `prefix` runs the remote
        /// accessoryctl through another program (`setpriv …`).
        func remote(config: String? = nil, prefix: String = "") throws -> [String] {
            [
                "--host", sshd.url, "--ssh-config", try config ?? sshd.clientConfig(),
                "--remote-command", prefix + ctl + " --socket " + scenario.socketPath,
            ]
        }

        /// Runs a shell line (accessoryctl with `arguments`, after `stdin | ` when given) to its end.
        func run(_ label: String, _ arguments: [String], stdin: String? = nil, seconds: Double = 30) throws -> ChildRun
        {
            let child = try start(label, arguments, stdin: stdin)
            if child.wait(seconds: seconds) == nil {
                child.kill()
                Issue.record("\(label) still ran after \(seconds) s: \(child.stderr)")
            }
            return child
        }

        func start(_ label: String, _ arguments: [String], stdin: String? = nil) throws -> ChildRun {
            let quoted = ([ctl] + arguments).map {
                "'" + $0.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
            }
            let line = (stdin.map { "printf '\($0)' | " } ?? "") + quoted.joined(separator: " ")
            let name = String(label.map { $0 == " " ? "-" : $0 })
            return try ChildRun(
                label: label,
                executable: "/bin/sh",
                arguments: ["-c", line],
                stdoutPath: scenario.directory.file(name + ".out"),
                stderrPath: scenario.directory.file(name + ".err")
            )
        }

        func finish() {
            sshd.stop()
            scenario.finish()
        }
    }

    @Test(.enabled(if: unavailableReason == nil, "\(unavailableReason ?? "")"))
    func listAndTransactThroughSSH() throws {
        let w = try World { s in
            try s.simulator("echo")
            try s.startDaemon(accessories: [s.lineAccessory("echo")])
        }
        defer { w.finish() }
        let list = try w.run("list", try w.remote() + ["list"])
        #expect(list.termination == .exited(0), "\(list.stderr)")
        #expect(list.stdout.contains("echo"), "\(list.stdout)")
        let transact = try w.run("transact", try w.remote() + ["transact", "echo", "hello over ssh"])
        #expect(transact.termination == .exited(0), "\(transact.stderr)")
        #expect(transact.stdout.contains("hello over ssh"), "\(transact.stdout)")
        // $ACCESSORYD_HOST names the host when --host is not given.
        let viaEnvironment = try ChildRun(
            label: "transact via ACCESSORYD_HOST",
            executable: w.ctl,
            arguments: try Array(w.remote().dropFirst(2)) + ["transact", "echo", "from the environment"],
            environment: ["ACCESSORYD_HOST": w.sshd.url],
            stdoutPath: w.scenario.directory.file("env.out"),
            stderrPath: w.scenario.directory.file("env.err")
        )
        #expect(viaEnvironment.wait(seconds: 30) == .exited(0), "\(viaEnvironment.stderr)")
        #expect(viaEnvironment.stdout.contains("from the environment"))
    }

    @Test(.enabled(if: unavailableReason == nil, "\(unavailableReason ?? "")"))
    func monitorPrintsTheRemoteAccessorysUnsolicitedData() throws {
        let w = try World { s in
            try s.simulator("gps", ["--personality", "nmea"])
            try s.startDaemon(accessories: [s.lineAccessory("gps")])
        }
        defer { w.finish() }
        let monitor = try w.run("monitor", try w.remote() + ["monitor", "gps", "--count", "2"])
        #expect(monitor.termination == .exited(0), "\(monitor.stderr)")
        #expect(monitor.stdout.contains("$GP"), "\(monitor.stdout)")
    }

    @Test(.enabled(if: unavailableReason == nil, "\(unavailableReason ?? "")"))
    func pipedAttachCarriesBytesBothWays() throws {
        let w = try World { s in
            try s.simulator("echo")
            try s.startDaemon(accessories: [s.lineAccessory("echo")])
        }
        defer { w.finish() }
        let attach = try w.run("attach", try w.remote() + ["attach", "echo", "--linger", "500"], stdin: "one\\ntwo\\n")
        #expect(attach.termination == .exited(0), "\(attach.stderr)")
        #expect(attach.stdout == "one\ntwo\n")
    }

    /// The daemon judges the process that connects to it on its own host, the one ssh started as
    /// the SSH user: here the remote accessoryctl runs as uid 65534 (`setpriv`, standing in for
    /// an SSH login as an unprivileged user, since root is always allowed), and an accessory
    /// whose `access:` names only root is hidden from it as from a local user of that uid.
    @Test(.enabled(if: unavailableReason == nil && PermissionTests.unavailableReason == nil, "setpriv or sshd missing"))
    func anAccessRuleRefusesTheRemoteUser() throws {
        let w = try World { s in
            try s.simulator("open")
            try s.simulator("secret")
            try s.startDaemon(accessories: [
                s.lineAccessory("open"),
                s.lineAccessory("secret", "access: {users: [0]}"),
            ])
        }
        defer { w.finish() }
        guard ExternalProgram.othersMayRun(w.ctl) else {
            Issue.record("\(w.ctl) cannot be run by uid 65534 (a folder on its way is private)")
            return
        }
        let asNobody = "\(PermissionTests.setpriv) --reuid=65534 --regid=65534 --clear-groups "
        let refused = try w.run("transact as nobody", try w.remote(prefix: asNobody) + ["transact", "secret", "x"])
        #expect(refused.termination == .exited(5), "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("unknown_device"), "\(refused.stderr)")
        let list = try w.run("list as nobody", try w.remote(prefix: asNobody) + ["list"])
        #expect(list.termination == .exited(0), "\(list.stderr)")
        #expect(list.stdout.contains("open") && !list.stdout.contains("secret"), "\(list.stdout)")
        let allowed = try w.run("transact as root", try w.remote() + ["transact", "secret", "x"])
        #expect(allowed.termination == .exited(0), "\(allowed.stderr)")
    }

    /// SIGTERM: the daemon answers the call in flight that it is stopping before it closes, which
    /// the client reports as daemon_restarted (the request was in flight, and is not resent).
    @Test(.enabled(if: unavailableReason == nil, "\(unavailableReason ?? "")"))
    func theRemoteDaemonStoppingMidCallAnswersWithItsReason() throws {
        let w = try World { s in
            try s.simulator("slow", ["--personality", "echo", "--delay-ms", "60000"])
            try s.startDaemon(accessories: [s.lineAccessory("slow", "response: {timeout_ms: 90000}")])
        }
        defer { w.finish() }
        let call = try w.start("slow transact", try w.remote() + ["transact", "slow", "never answered"])
        defer { call.kill() }
        try Self.waitUntilInFlight(w.scenario.socketPath, call)
        let stopwatch = Stopwatch()
        w.scenario.stopDaemon()
        // The daemon answered that it is stopping: the request was in flight (docs/reconnect.md).
        #expect(call.wait(seconds: 15) == .exited(1), "\(call.stderr)")
        #expect(stopwatch.elapsed < 10)
        #expect(call.stderr.contains("(daemon_restarted)"), "\(call.stderr)")
    }

    /// SIGKILL: the connection is simply gone; the client says so, quoting the hop, and exits 1
    /// (as for a local daemon that went away) within seconds.
    @Test(.enabled(if: unavailableReason == nil, "\(unavailableReason ?? "")"))
    func theRemoteDaemonKilledMidCallIsALostConnectionNotAHang() throws {
        let w = try World { s in try s.simulator("slow", ["--personality", "echo", "--delay-ms", "60000"]) }
        defer { w.finish() }
        let s = w.scenario
        let config = try s.directory.write(
            "accessoryd.yaml",
            s.configuration(accessories: [s.lineAccessory("slow", "response: {timeout_ms: 90000}")])
        )
        let daemon = try DaemonRun(configPath: config, socketPath: s.socketPath, in: s.directory)
        defer { daemon.child.kill() }
        try s.waitUntilReady(["slow"])
        let call = try w.start("slow transact", try w.remote() + ["transact", "slow", "never answered"])
        defer { call.kill() }
        try Self.waitUntilInFlight(s.socketPath, call)
        let stopwatch = Stopwatch()
        daemon.child.kill()
        #expect(call.wait(seconds: 15) == .exited(1), "\(call.stderr)")
        #expect(stopwatch.elapsed < 10)
        #expect(call.stderr.contains("the connection to accessoryd on \(w.sshd.url) was lost"), "\(call.stderr)")
        #expect(call.stderr.contains("(disconnected)"), "\(call.stderr)")
    }

    /// Waits (bounded) until the daemon counts a request in flight: the call has crossed ssh.
    static func waitUntilInFlight(_ socketPath: String, _ call: ChildRun) throws {
        let client = try RPCClient(socketPath: socketPath)
        defer { client.close() }
        let deadline = Deadline(seconds: 20)
        while try client.result("daemon.status")["requests_in_flight"]?.intValue ?? 0 == 0 {
            if deadline.hasPassed || !call.isRunning {
                throw HarnessError("the transact never reached the daemon: \(call.stderr)")
            }
            usleep(20_000)
        }
    }

    @Test(.enabled(if: unavailableReason == nil, "\(unavailableReason ?? "")"))
    func aWrongHostKeyFailsWithSSHsMessage() throws {
        let w = try World { s in
            try s.simulator("echo")
            try s.startDaemon(accessories: [s.lineAccessory("echo")])
        }
        defer { w.finish() }
        let wrong = try w.sshd.clientConfig(wrongHostKey: true)
        let run = try w.run("wrong host key", try w.remote(config: wrong) + ["list"])
        #expect(run.termination == .exited(1), "\(run.stderr)")
        #expect(run.stderr.contains("Host key verification failed"), "\(run.stderr)")
        #expect(run.stderr.contains("(disconnected)"), "\(run.stderr)")
    }

    @Test(.enabled(if: unavailableReason == nil, "\(unavailableReason ?? "")"))
    func aRemoteHostWithoutADaemonSaysSoWithExitStatus3() throws {
        let w = try World { s in
            try s.simulator("echo")
            try s.startDaemon(accessories: [s.lineAccessory("echo")])
        }
        defer { w.finish() }
        let arguments = [
            "--host", w.sshd.url, "--ssh-config", try w.sshd.clientConfig(),
            "--remote-command", w.ctl + " --socket " + w.scenario.directory.file("nothing.sock"), "list",
        ]
        let run = try w.run("no daemon", arguments)
        #expect(run.termination == .exited(3), "\(run.stderr)")
        #expect(run.stderr.contains("accessoryd is not running"), "\(run.stderr)")
    }
}

/// `accessoryctl dial-stdio` on its own: the relay that ssh runs.
///
/// Threading: the test's thread.
@Suite struct DialStdioTests {
    /// Requests piped in are all answered although the input ends at once: the end of input
    /// only shuts down the sending side, and the relay ends when the daemon closes.
    @Test func requestsPipedInAreAnsweredAfterTheInputEnds() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(accessories: [s.lineAccessory("echo")])
        let ctl = try BuiltProducts.executable("accessoryctl")
        let requests =
            [
                #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"echo","data":"one"}}"#,
                #"{"jsonrpc":"2.0","id":2,"method":"devices.list"}"#,
            ].joined(separator: "\\n") + "\\n"
        let run = try ChildRun(
            label: "dial-stdio",
            executable: "/bin/sh",
            arguments: ["-c", "printf '\(requests)' | '\(ctl)' --socket '\(s.socketPath)' dial-stdio"],
            stdoutPath: s.directory.file("dial.out"),
            stderrPath: s.directory.file("dial.err")
        )
        defer { run.kill() }
        #expect(run.wait(seconds: 15) == .exited(0), "\(run.stderr)")
        // Answers in the order the daemon finishes them: the list does not wait for the accessory.
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(run.stdout)")
        #expect(lines.contains { $0.contains(#""id":1"#) && $0.contains(#""data":"one""#) }, "\(run.stdout)")
        #expect(lines.contains { $0.contains(#""id":2"#) && $0.contains(#""devices""#) }, "\(run.stdout)")
    }

    @Test func noDaemonExitsWithStatus3() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let ctl = try BuiltProducts.executable("accessoryctl")
        let run = try ChildRun(
            label: "dial-stdio",
            executable: ctl,
            arguments: ["--socket", directory.file("none.sock"), "dial-stdio"],
            stdoutPath: directory.file("dial.out"),
            stderrPath: directory.file("dial.err")
        )
        defer { run.kill() }
        #expect(run.wait(seconds: 15) == .exited(3), "\(run.stderr)")
        #expect(run.stderr.contains("accessoryd is not running"))
    }
}
