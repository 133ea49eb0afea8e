import Glibc
import SystemCalls
import Testing

/// Another local user posing as the daemon to a client: a per-user runtime directory planted in
/// `/tmp` with the attacker's own accessoryd listening in it, and a listener of the attacker's
/// put in the victim's own directory. `accessoryctl` (the Swift client) refuses both and sends
/// nothing; a path the user names explicitly is trusted as given (see docs/security.md).
///
/// Threading: each test on its own test thread; it owns the processes it starts.
@Suite struct ClientSocketTrustTests {
    static let setpriv = "/usr/bin/setpriv"
    static let attacker: UInt32 = 65533
    /// A uid of its own, so that `/tmp/accessoryd-<victim>` is this suite's alone.
    static let victim: UInt32 = 65529

    static var unavailableReason: String? {
        if let reason = RuntimeDirectoryAttackTests.notRootReason { return reason }
        if access(DaemonPaths.systemSocket, F_OK) == 0 {
            return "\(DaemonPaths.systemSocket) exists: clients would pick it"
        }
        return nil
    }

    /// The attacker's accessoryd (uid ``attacker``), serving a simulated echo accessory "fake" on
    /// `socket` in `runtime`, a folder the attacker owns (0755: the victim may enter it).
    static func startAttackerDaemon(_ s: Scenario, runtime: String) throws {
        s.runtimeDirectory = runtime
        s.socketPath = runtime + "/" + DaemonPaths.socketName
        s.launcher = [setpriv, "--reuid=\(attacker)", "--regid=\(attacker)", "--clear-groups"]
        let fake = #"  - {name: fake, simulate: {personality: echo}, framing: {type: line, delimiter: "\n"}}"#
        try s.startDaemon(accessories: [fake], ready: ["fake"])
    }

    /// `accessoryctl ARGUMENTS` run as ``victim`` with only `environment` naming places (no
    /// `$ACCESSORYD_SOCKET`, no `$XDG_RUNTIME_DIR` unless given), to its end.
    static func victimRuns(
        _ s: Scenario,
        _ arguments: [String],
        environment: [String: String] = [:],
        tag: String
    ) throws -> (status: ChildProcess.Termination?, output: String) {
        let ctl = try BuiltProducts.executable("accessoryctl")
        let run = try ChildRun(
            label: "accessoryctl \(tag)",
            executable: setpriv,
            arguments: ["--reuid=\(victim)", "--regid=\(victim)", "--clear-groups", ctl] + arguments,
            environment: ["ACCESSORYD_SOCKET": "", "XDG_RUNTIME_DIR": ""].merging(environment) { $1 },
            stdoutPath: s.directory.file("\(tag).out"),
            stderrPath: s.directory.file("\(tag).out")
        )
        let ended = run.wait(seconds: 20)
        if ended == nil { run.kill() }
        return (ended, run.stdout)
    }

    @Test(.enabled(if: unavailableReason == nil, "\(unavailableReason ?? "")"))
    func aPlantedTmpRuntimeDirectoryIsRefusedAndNothingIsSent() throws {
        let planted = "/tmp/accessoryd-\(Self.victim)"
        TemporaryDirectory.removeTree(planted)
        defer { TemporaryDirectory.removeTree(planted) }
        let s = try Scenario()
        defer { s.finish() }
        try RuntimeDirectoryAttackTests.makeDirectory(planted, owner: Self.attacker, mode: 0o755)
        try Self.startAttackerDaemon(s, runtime: planted)

        let list = try Self.victimRuns(s, ["list"], tag: "list")
        print("victim's accessoryctl list with \(planted) planted: \(String(describing: list.status)): \(list.output)")
        #expect(list.status == .exited(4), "\(list.output)")
        #expect(
            list.output.contains(
                "unsafe directory \(planted): it is owned by uid \(Self.attacker) (mode 0755), not by this user's uid \(Self.victim)"
            ),
            "\(list.output)"
        )
        #expect(!list.output.contains("fake"), "the attacker's accessory was shown: \(list.output)")

        let sent = try Self.victimRuns(s, ["transact", "fake", "secret"], tag: "transact")
        #expect(sent.status == .exited(4), "\(sent.output)")
        #expect(!sent.output.contains("secret"), "the attacker's daemon got (and echoed) the data: \(sent.output)")
    }

    @Test(.enabled(if: unavailableReason == nil, "\(unavailableReason ?? "")"))
    func aListenerOfAnotherUserInTheVictimsOwnDirectoryIsRefused() throws {
        let s = try Scenario()
        defer { s.finish() }
        // The victim's $XDG_RUNTIME_DIR/accessoryd, as it should be (the victim's, 0700) …
        let xdg = s.directory.file("xdg")
        try RuntimeDirectoryAttackTests.makeDirectory(xdg, owner: Self.victim, mode: 0o700)
        let own = xdg + "/accessoryd"
        try RuntimeDirectoryAttackTests.makeDirectory(own, owner: Self.victim, mode: 0o700)
        // … and in it, the socket of a daemon the attacker runs, with the victim's name on it:
        // names pass, only the process behind the socket tells.
        let lair = s.directory.file("lair")
        try RuntimeDirectoryAttackTests.makeDirectory(lair, owner: Self.attacker, mode: 0o755)
        try Self.startAttackerDaemon(s, runtime: lair)
        let socket = own + "/" + DaemonPaths.socketName
        try #require(rename(s.socketPath, socket) == 0 && lchown(socket, Self.victim, Self.victim) == 0)

        let list = try Self.victimRuns(s, ["list"], environment: ["XDG_RUNTIME_DIR": xdg], tag: "peer")
        print("victim's accessoryctl list, another user's listener in its directory: \(list.output)")
        #expect(list.status == .exited(4), "\(list.output)")
        #expect(
            list.output.contains("unsafe socket \(socket): the process listening on it (pid "),
            "\(list.output)"
        )
        #expect(list.output.contains("runs as uid \(Self.attacker), not as this user's uid \(Self.victim) or root"))
        #expect(!list.output.contains("fake"), "the attacker's accessory was shown: \(list.output)")
    }

    @Test(.enabled(if: unavailableReason == nil, "\(unavailableReason ?? "")"))
    func anExplicitSocketElsewhereIsTrustedAsGiven() throws {
        let s = try Scenario()
        defer { s.finish() }
        let shared = s.directory.file("shared")
        try RuntimeDirectoryAttackTests.makeDirectory(shared, owner: Self.attacker, mode: 0o755)
        try Self.startAttackerDaemon(s, runtime: shared)
        let list = try Self.victimRuns(s, ["--socket", s.socketPath, "list"], tag: "explicit")
        #expect(list.status == .exited(0), "\(list.output)")
        #expect(list.output.contains("fake"), "\(list.output)")
    }
}
