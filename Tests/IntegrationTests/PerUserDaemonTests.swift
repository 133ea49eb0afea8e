import Glibc
import SystemCalls
import Testing

/// A daemon started by a user with no flags, and `accessoryctl` run by the same user with no
/// flags, meet: both use `$XDG_RUNTIME_DIR/accessoryd/accessoryd.sock`, and
/// `accessoryd --print-socket` says so.
///
/// Threading: the test's thread; it owns the processes it starts.
@Suite struct PerUserDaemonTests {
    static let setpriv = "/usr/bin/setpriv"
    static var asNobody: [String] { [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"] }

    static var unavailableReason: String? {
        if let reason = RuntimeDirectoryAttackTests.notRootReason { return reason }
        if access(DaemonPaths.systemSocket, F_OK) == 0 {
            return "\(DaemonPaths.systemSocket) exists: clients would (rightly) use the system daemon"
        }
        return nil
    }

    @Test(.enabled(if: unavailableReason == nil, "\(unavailableReason ?? "")"))
    func aDaemonAndAClientRunByOneUserMeetWithNoFlags() throws {
        let s = try Scenario()
        defer { s.finish() }
        let xdg = s.directory.file("xdg")
        try RuntimeDirectoryAttackTests.makeDirectory(xdg, owner: 65534, mode: 0o700)
        let environment = ["XDG_RUNTIME_DIR": xdg, "RUNTIME_DIRECTORY": "", "ACCESSORYD_SOCKET": ""]
        let expected = xdg + "/accessoryd/accessoryd.sock"

        let printed = try ChildRun(
            label: "accessoryd --print-socket",
            executable: Self.setpriv,
            arguments: Array(Self.asNobody.dropFirst()) + [try BuiltProducts.daemon(), "--print-socket"],
            environment: environment,
            stdoutPath: s.directory.file("print.out"),
            stderrPath: s.directory.file("print.err")
        )
        #expect(printed.wait(seconds: 20) == .exited(0))
        #expect(printed.stdout == expected + "\n", "stderr: \(printed.stderr)")

        // The embedded default (no /etc/accessoryd/accessoryd.yaml), as uid 65534, no flags.
        let child = try ChildRun(
            label: "accessoryd",
            executable: Self.setpriv,
            arguments: Array(Self.asNobody.dropFirst()) + [try BuiltProducts.daemon()],
            environment: environment,
            stdoutPath: s.directory.file("accessoryd.log"),
            stderrPath: s.directory.file("accessoryd.log")
        )
        s.adopt(DaemonRun(adopting: child, socketPath: expected))
        let deadline = Deadline(seconds: 20)
        // The startup line, written once it serves, names the socket.
        while !child.stdout.contains("on \(expected)") && child.poll() == nil && !deadline.hasPassed { usleep(5_000) }
        try #require(
            child.stdout.contains("on \(expected)"),
            "no startup line naming \(expected); log:\n\(child.stdout)"
        )
        #expect(access(expected, F_OK) == 0)
        let runtime = try #require(try FileIO.status(ofPath: xdg + "/accessoryd"))
        let sim = try #require(try FileIO.status(ofPath: xdg + "/accessoryd/sim"))
        #expect(runtime.owner == 65534 && runtime.permissions == 0o700, "\(runtime)")
        #expect(sim.owner == 65534 && sim.permissions == 0o700, "\(sim)")

        // accessoryctl as the same user, no --socket: it finds the daemon.
        var listed = ""
        for attempt in 0..<100 {
            let ctl = try ChildRun(
                label: "accessoryctl list",
                executable: Self.setpriv,
                arguments: Array(Self.asNobody.dropFirst()) + [try BuiltProducts.executable("accessoryctl"), "list"],
                environment: environment,
                stdoutPath: s.directory.file("ctl-\(attempt).out"),
                stderrPath: s.directory.file("ctl-\(attempt).err")
            )
            let status = ctl.wait(seconds: 20)
            listed = ctl.stdout + ctl.stderr
            if status == .exited(0) && listed.contains("echo") && listed.contains("ready") { break }
            usleep(50_000)
        }
        print("per-user daemon at \(expected); accessoryctl list as the same user says:\n\(listed)")
        #expect(listed.contains("echo") && listed.contains("ready"), "\(listed)")
    }
}
