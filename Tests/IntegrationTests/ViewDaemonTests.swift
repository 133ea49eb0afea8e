import AccessoryTestSupport
import ControlProtocol
import Glibc
import JSONCodec
import SystemCalls
import Testing

/// Pty views against the built daemon and `accessory-sim`: `--check-config` and a refused start on
/// bad views, then monitor and shared views under the runtime directory through a reload and an
/// unplug.
///
/// Threading: the test's thread; it owns the daemon, the simulators and the pty descriptors.
@Suite struct ViewDaemonTests {
    @Test func badViewsAreConfigurationErrorsAndNothingIsCreated() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        _ = try folder.write("taken", "a file of someone's")
        let path = try folder.write(
            "views.yaml",
            """
            socket:
              path: \(folder.file("d.sock"))
            accessories:
              - name: echo
                path: /dev/ttyUSB0
                views:
                  - {pty: \(folder.file("no-such-folder/v")), mode: monitor}
                  - {pty: \(folder.file("taken")), mode: shared}
                  - {pty: \(folder.file("v3")), mode: exclusive, owner: no-such-user-xyz}

            """
        )
        let r = try ConfigTests.run(["--check-config", "--config", path], in: folder, tag: "views")
        #expect(r.status == .exited(1))
        let lines = r.stderr.split(separator: "\n").map(String.init)
        #expect(
            lines.contains { $0.hasPrefix("\(path):7: accessories[0].views[0].pty:") && $0.contains("does not exist") }
        )
        #expect(
            lines.contains { $0.hasPrefix("\(path):8: accessories[0].views[1].pty:") && $0.contains("regular file") }
        )
        #expect(
            lines.contains {
                $0.hasPrefix("\(path):9: accessories[0].views[2].owner:") && $0.contains("no-such-user-xyz")
            }
        )
        #expect(r.stdout.contains("3 error(s)"), "\(r.stdout)")

        let start = try ConfigTests.run(["--config", path, "--runtime-dir", folder.path], in: folder, tag: "start")
        #expect(start.status == .exited(1))
        #expect(access(folder.file("d.sock"), F_OK) != 0 && access(folder.file("v3"), F_OK) != 0)
        #expect(FileIO.readText(folder.file("taken")) == "a file of someone's")
    }

    @Test func viewsServeProgramsThroughReloadAndUnplug() throws {
        let s = try Scenario()
        defer { s.finish() }
        // Answers 4 replies, hangs up on the next, reappears on a new pty 300 ms later.
        try s.simulator("echo", ["--personality", "echo", "--hangup-after", "4", "--reappear-after-ms", "300"])
        let views = "views: [{pty: mon, mode: monitor}, {pty: sh, mode: shared, perm: \"0640\"}]"
        let accessory = s.lineAccessory("echo", "reconnect: {initial_ms: 20, max_ms: 100}, " + views)
        try s.startDaemon(accessories: [accessory])
        let tty = s.runtimeDirectory + "/tty/"
        #expect(try FileIO.readLink(tty + "sh").hasPrefix("/dev/pts/"))
        let slave = try #require(try FileIO.status(followingLinks: tty + "sh"))
        #expect(slave.permissions == 0o640 && slave.kind == .characterDevice)

        let mon = try FileIO.open(tty + "mon", flags: O_RDWR | O_NOCTTY | O_NONBLOCK)
        let sh = try FileIO.open(tty + "sh", flags: O_RDWR | O_NOCTTY | O_NONBLOCK)
        let client = try s.connect()
        func view(_ name: String) throws -> JSONValue? {
            try client.result("device.status", Params.device("echo"))["views"]?.arrayValue?.first {
                $0["path"]?.stringValue == tty + name
            }
        }
        #expect(Wait.until(seconds: 5) { (try? view("sh")?["open"]?.boolValue) == true })
        #expect(Wait.until(seconds: 5) { (try? view("mon")?["open"]?.boolValue) == true })

        // Shared: the program's line is a transact; its reply comes back to it alone.
        _ = try FileIO.writeAll(sh.rawValue, Array("one\n".utf8))
        #expect(Self.read(sh.rawValue, atLeast: 4) == "one\n")
        // Monitor: an unclaimed frame (a socket client's write echoed).
        _ = try client.result("write", Params.transfer("echo", "seen"))
        #expect(Self.read(mon.rawValue, atLeast: 5) == "seen\n")
        #expect(Self.read(sh.rawValue, atLeast: 5) == "seen\n")

        // accessoryctl views: the table, and --json with each view's status and its device.
        let table = try Self.ctl(s, ["views"])
        let rows = table.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        #expect(rows.first == ["DEVICE", "PATH", "MODE", "OPEN", "TO-PROG", "FROM-PROG", "DROPPED", "REFUSED", "PTY"])
        #expect(
            rows.contains {
                $0.count == 9 && $0[1] == tty + "sh" && $0[2] == "shared" && $0[3] == "yes" && $0[4] == "9"
                    && $0[5] == "4"
            }
        )
        let json = try JSONParser.parse(Array(try Self.ctl(s, ["views", "--json"]).utf8))
        let listed = json["views"]?.arrayValue ?? []
        #expect(listed.count == 2 && listed.allSatisfy { $0["device"]?.stringValue == "echo" })
        #expect(
            listed.first { $0["path"]?.stringValue == tty + "mon" }?["counters"]?["bytes_to_program"]?.int64Value == 5
        )

        // Reload: the shared view becomes a monitor view (a new pty); the monitor view is kept.
        let monPty = try view("mon")?["pty"]?.stringValue
        _ = try s.directory.write(
            "accessoryd.yaml",
            s.configuration(accessories: [
                s.lineAccessory("echo", "reconnect: {initial_ms: 20, max_ms: 100}, views: [{pty: mon, mode: monitor}]")
            ])
        )
        try ChildProcess.signal(s.daemon!.pid, SIGHUP)
        #expect(Wait.until(seconds: 5) { access(tty + "sh", F_OK) != 0 })
        #expect(try view("mon")?["pty"]?.stringValue == monPty)

        // Unplug (the fifth reply hangs up) and replug: the monitor view's file stays good.
        for i in 0..<6 { _ = try client.call("transact", Params.transfer("echo", "u\(i)", timeoutMs: 300)) }
        #expect(
            Wait.until(seconds: 10) { ((try? view("mon")?["counters"]?["accessory_changes"]?.int64Value) ?? 0) >= 3 }
        )
        try s.waitUntilReady(["echo"])
        _ = try client.result("write", Params.transfer("echo", "after"))
        #expect(Self.read(mon.rawValue, atLeast: 6).hasSuffix("after\n"))
        #expect(try view("mon")?["open"]?.boolValue == true)
    }

    /// `accessoryctl --socket … arguments`'s standard output (bounded: 10 s; must exit 0).
    static func ctl(_ s: Scenario, _ arguments: [String]) throws -> String {
        let run = try ChildRun(
            label: "accessoryctl \(arguments)",
            executable: try BuiltProducts.executable("accessoryctl"),
            arguments: ["--socket", s.socketPath] + arguments,
            stdoutPath: s.directory.file("ctl.out"),
            stderrPath: s.directory.file("ctl.err")
        )
        defer { run.kill() }
        #expect(run.wait(seconds: 10) == .exited(0), "stderr: \(run.stderr)")
        return run.stdout
    }

    /// What `fd` gives until it has `count` bytes (bounded: 5 s).
    static func read(_ fd: CInt, atLeast count: Int) -> String {
        var got: [UInt8] = []
        _ = Wait.until(seconds: 5) {
            while let bytes = try? FileIO.read(fd, max: 4096), !bytes.isEmpty { got += bytes }
            return got.count >= count
        }
        return String(decoding: got, as: UTF8.self)
    }
}
