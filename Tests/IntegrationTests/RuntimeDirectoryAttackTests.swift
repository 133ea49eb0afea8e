import Glibc
import SystemCalls
import Testing

/// The runtime directory taken over by another local user, reproduced against the built daemon:
/// a directory (or a symbolic link to one) planted where the daemon would make its own, and a
/// planted or swapped `sim/`. The daemon refuses to start, says which directory, its owner and
/// mode, and leaves what was planted as it was.
///
/// Threading: each test on its own test thread; it owns the daemons it starts.
@Suite struct RuntimeDirectoryAttackTests {
    static let setpriv = "/usr/bin/setpriv"
    static let attacker: UInt32 = 65533
    static var asNobody: [String] { [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"] }

    static var notRootReason: String? {
        if getuid() != 0 { return "planting files as another uid and running the daemon as one needs root" }
        if access(setpriv, X_OK) != 0 { return "\(setpriv) is not installed" }
        if access("/etc/accessoryd/accessoryd.yaml", F_OK) == 0 {
            return "/etc/accessoryd/accessoryd.yaml exists: the daemon would not run its embedded default"
        }
        return nil
    }

    /// Runs the built daemon (under `launcher`) with `arguments` and `environment` to its end,
    /// bounded; returns how it ended and what it said.
    static func runToEnd(
        _ s: Scenario,
        arguments: [String],
        environment: [String: String],
        launcher: [String] = [],
        tag: String
    ) throws -> (status: ChildProcess.Termination?, output: String) {
        let daemon = try BuiltProducts.daemon()
        let child = try ChildRun(
            label: "accessoryd \(tag)",
            executable: launcher.first ?? daemon,
            arguments: launcher.isEmpty ? arguments : Array(launcher.dropFirst()) + [daemon] + arguments,
            environment: environment,
            stdoutPath: s.directory.file("\(tag).out"),
            stderrPath: s.directory.file("\(tag).out")
        )
        let ended = child.wait(seconds: 20)
        if ended == nil {
            child.kill()
            Issue.record("accessoryd (\(tag)) was still running after 20 s: it should have refused to start")
        }
        return (ended, child.stdout)
    }

    /// A folder owned by `owner` with `mode` (set after creation: the umask does not apply).
    static func makeDirectory(_ path: String, owner: UInt32, mode: UInt32) throws {
        try #require(mkdir(path, 0o700) == 0 && chown(path, owner, owner) == 0 && chmod(path, mode_t(mode)) == 0)
    }

    static func listing(_ path: String) -> [String] { ((try? FileIO.listDirectory(path)) ?? []).sorted() }

    @Test(.enabled(if: notRootReason == nil, "\(notRootReason ?? "")"))
    func aRuntimeDirectoryPlantedByAnotherUserIsRefusedAndLeftAlone() throws {
        let s = try Scenario()
        defer { s.finish() }
        // Where $XDG_RUNTIME_DIR points (root's 0755, as /tmp is open to all): another user got
        // there first and made accessoryd/, 0777, with a file where the socket would go.
        let xdg = s.directory.file("xdg")
        try Self.makeDirectory(xdg, owner: 0, mode: 0o755)
        let planted = xdg + "/accessoryd"
        try Self.makeDirectory(planted, owner: Self.attacker, mode: 0o777)
        let bait = planted + "/accessoryd.sock"
        try s.directory.write("xdg/accessoryd/accessoryd.sock", "planted")
        try #require(chown(bait, Self.attacker, Self.attacker) == 0)

        let r = try Self.runToEnd(
            s,
            arguments: [],
            environment: ["XDG_RUNTIME_DIR": xdg, "RUNTIME_DIRECTORY": ""],
            launcher: Self.asNobody,
            tag: "planted"
        )
        print("runtime directory planted by uid \(Self.attacker): \(String(describing: r.status)); says: \(r.output)")
        #expect(r.status != nil && r.status != .exited(0))
        #expect(r.output.contains("unsafe directory \(planted)"), "\(r.output)")
        #expect(r.output.contains("owned by uid \(Self.attacker) (mode 0777)"), "\(r.output)")
        #expect(r.output.contains("remove it"), "\(r.output)")
        #expect(Self.listing(planted) == ["accessoryd.sock"], "the daemon added or removed something")
        #expect(TemporaryDirectory.contents(of: bait) == "planted")
        #expect(try FileIO.status(ofPath: planted)?.permissions == 0o777)
    }

    @Test(.enabled(if: notRootReason == nil, "\(notRootReason ?? "")"))
    func aRuntimeDirectoryThatIsALinkToAnotherUsersFolderIsRefused() throws {
        let s = try Scenario()
        defer { s.finish() }
        let xdg = s.directory.file("xdg")
        try Self.makeDirectory(xdg, owner: 0, mode: 0o755)
        let lair = s.directory.file("attacker")
        try Self.makeDirectory(lair, owner: Self.attacker, mode: 0o777)
        let link = xdg + "/accessoryd"
        try #require(symlink(lair, link) == 0)
        try #require(lchown(link, Self.attacker, Self.attacker) == 0)

        let r = try Self.runToEnd(
            s,
            arguments: [],
            environment: ["XDG_RUNTIME_DIR": xdg, "RUNTIME_DIRECTORY": ""],
            launcher: Self.asNobody,
            tag: "linked"
        )
        print(
            "runtime directory linked to uid \(Self.attacker)'s folder: \(String(describing: r.status)); says: \(r.output)"
        )
        #expect(r.status != nil && r.status != .exited(0))
        #expect(r.output.contains("unsafe directory \(link): it is a symbolic link"), "\(r.output)")
        #expect(Self.listing(lair).isEmpty, "the daemon wrote into the link's target")
        #expect(try FileIO.readLink(link) == lair)
    }

    /// A configuration with one simulated accessory (so `sim/` is used) and the socket in the
    /// test's folder.
    static func simulatedConfiguration(_ s: Scenario) throws -> String {
        let accessory = #"  - {name: echo, simulate: {personality: echo}, framing: {type: line, delimiter: "\n"}}"#
        return try s.directory.write("accessoryd.yaml", s.configuration(accessories: [accessory]))
    }

    @Test(.enabled(if: notRootReason == nil, "\(notRootReason ?? "")"))
    func aSimFolderPlantedByAnotherUserIsRefused() throws {
        let s = try Scenario()
        defer { s.finish() }
        let runtime = s.directory.file("rt")
        try Self.makeDirectory(runtime, owner: 0, mode: 0o700)
        let sim = runtime + "/sim"
        try Self.makeDirectory(sim, owner: Self.attacker, mode: 0o755)
        // The attacker's pty stand-in, where the daemon would look for the echo simulator.
        try #require(symlink("/dev/null", sim + "/echo") == 0)
        let config = try Self.simulatedConfiguration(s)

        let r = try Self.runToEnd(
            s,
            arguments: ["--config", config, "--runtime-dir", runtime],
            environment: [:],
            tag: "sim-planted"
        )
        print("sim/ planted by uid \(Self.attacker): \(String(describing: r.status)); says: \(r.output)")
        #expect(r.status != nil && r.status != .exited(0))
        #expect(
            r.output.contains("unsafe directory \(sim): it is owned by uid \(Self.attacker) (mode 0755)"),
            "\(r.output)"
        )
        #expect(Self.listing(sim) == ["echo"])
        #expect(try FileIO.readLink(sim + "/echo") == "/dev/null")
        #expect(access(s.socketPath, F_OK) != 0, "the daemon made its socket although it refused to start")
    }

    @Test(.enabled(if: notRootReason == nil, "\(notRootReason ?? "")"))
    func aSimFolderSwappedForALinkIsRefused() throws {
        let s = try Scenario()
        defer { s.finish() }
        let runtime = s.directory.file("rt")
        try Self.makeDirectory(runtime, owner: 0, mode: 0o700)
        let lair = s.directory.file("attacker")
        try Self.makeDirectory(lair, owner: Self.attacker, mode: 0o777)
        let sim = runtime + "/sim"
        try #require(symlink(lair, sim) == 0)
        let config = try Self.simulatedConfiguration(s)

        let r = try Self.runToEnd(
            s,
            arguments: ["--config", config, "--runtime-dir", runtime],
            environment: [:],
            tag: "sim-linked"
        )
        print("sim/ swapped for a link: \(String(describing: r.status)); says: \(r.output)")
        #expect(r.status != nil && r.status != .exited(0))
        #expect(r.output.contains("unsafe directory \(sim): it is a symbolic link"), "\(r.output)")
        #expect(Self.listing(lair).isEmpty, "the daemon wrote into the link's target")
    }
}
