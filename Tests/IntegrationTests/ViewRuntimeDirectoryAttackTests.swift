import Glibc
import SystemCalls
import Testing

/// A runtime directory another user made first, with no `tty/` in it yet, for a daemon with a
/// relative view: the daemon does not start (the view is a configuration error naming the
/// directory), as for any unsafe folder of a view, and makes nothing in it.
///
/// Threading: the test's thread; it owns the daemon it starts.
@Suite struct ViewRuntimeDirectoryAttackTests {
    @Test(
        .enabled(
            if: RuntimeDirectoryAttackTests.notRootReason == nil,
            "\(RuntimeDirectoryAttackTests.notRootReason ?? "")"
        )
    )
    func aPlantedRuntimeDirectoryWithoutTTYIsRefused() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        let runtime = s.directory.file("rt")
        try RuntimeDirectoryAttackTests.makeDirectory(runtime, owner: RuntimeDirectoryAttackTests.attacker, mode: 0o755)
        let config = try s.directory.write(
            "accessoryd.yaml",
            s.configuration(accessories: [s.lineAccessory("echo", "views: [{pty: echo, mode: monitor}]")])
        )

        let r = try RuntimeDirectoryAttackTests.runToEnd(
            s,
            arguments: ["--config", config, "--runtime-dir", runtime],
            environment: [:],
            tag: "view-rt"
        )
        print(
            "relative view, runtime directory planted without tty/: \(String(describing: r.status)); says: \(r.output)"
        )
        #expect(r.status != nil && r.status != .exited(0))
        #expect(r.output.contains("views[0].pty"), "\(r.output)")
        #expect(
            r.output.contains(
                "unsafe directory \(runtime): it is owned by uid \(RuntimeDirectoryAttackTests.attacker) (mode 0755)"
            ),
            "\(r.output)"
        )
        #expect(RuntimeDirectoryAttackTests.listing(runtime).isEmpty, "the daemon made something in it")
    }
}
