import Glibc
import SystemCalls
import Testing

/// `accessoryd --check-config` and a daemon started on a bad file: exit codes 0 and 1, and every
/// problem named with file:line.
///
/// Threading: each test runs on its own test thread and owns the children it starts.
@Suite struct ConfigTests {
    /// Runs `accessoryd` with `arguments` to completion (bounded).
    static func run(_ arguments: [String], in directory: TemporaryDirectory, tag: String) throws -> (
        status: ChildProcess.Termination?, stdout: String, stderr: String
    ) {
        let child = try ChildRun(
            label: "accessoryd \(tag)",
            executable: try BuiltProducts.daemon(),
            arguments: arguments,
            stdoutPath: directory.file("\(tag).out"),
            stderrPath: directory.file("\(tag).err")
        )
        let ended = child.wait(seconds: 20)
        if ended == nil {
            child.kill()
            Issue.record("accessoryd \(arguments) did not finish within 20 s")
        }
        return (ended, child.stdout, child.stderr)
    }

    @Test func checkConfigAcceptsAValidFile() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = try folder.write(
            "good.yaml",
            """
            socket:
              path: \(folder.file("d.sock"))
            limits:
              queue_depth: 8
            accessories:
              - name: echo
                path: /dev/ttyUSB0
                framing: {type: line, delimiter: "\\n"}
              - name: sim
                simulate: {personality: echo, delay_ms: 5}
                framing: {type: line}

            """
        )
        let r = try Self.run(["--check-config", "--config", path], in: folder, tag: "good")
        #expect(r.status == .exited(0), "\(r.stderr)")
        #expect(r.stdout.contains("\(path): configuration is valid"))
        #expect(r.stderr.isEmpty)
    }

    @Test func checkConfigNamesFileLineAndKeyOfEveryProblem() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = try folder.write(
            "bad.yaml",
            """
            socket:
              path: \(folder.file("d.sock"))
            accessories:
              - name: echo
                path: /dev/ttyUSB0
                framing: {type: line}
                colour: blue
                serial:
                  baud: fast
              - name: echo
                path: /dev/ttyUSB1
                framing: {type: line}

            """
        )
        let r = try Self.run(["--check-config", "--config", path], in: folder, tag: "bad")
        #expect(r.status == .exited(1))
        let lines = r.stderr.split(separator: "\n").map(String.init)
        // An unknown key, reported with its own line.
        #expect(lines.contains { $0.hasPrefix("\(path):7:") && $0.contains("colour") }, "\(r.stderr)")
        // A wrong type, with the key path.
        #expect(
            lines.contains { $0.hasPrefix("\(path):9:") && $0.contains("accessories[0].serial.baud") },
            "\(r.stderr)"
        )
        // A duplicate name.
        #expect(lines.contains { $0.hasPrefix("\(path):10:") && $0.contains("duplicate") }, "\(r.stderr)")
        #expect(r.stdout.contains("3 error(s)"), "\(r.stdout)")
    }

    @Test func syntaxErrorsMissingFilesAndStartingOnABadFile() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let broken = try folder.write("broken.yaml", "socket:\n  path: [unclosed\naccessories: []\n")
        let syntax = try Self.run(["--check-config", "--config", broken], in: folder, tag: "syntax")
        #expect(syntax.status == .exited(1))
        #expect(syntax.stderr.contains("\(broken):"), "\(syntax.stderr)")
        #expect(syntax.stderr.contains("YAML"), "\(syntax.stderr)")

        let missing = folder.file("missing.yaml")
        let absent = try Self.run(["--check-config", "--config", missing], in: folder, tag: "missing")
        #expect(absent.status == .exited(1))
        #expect(absent.stderr.contains(missing))

        // Without --check-config the daemon refuses to start on it, with the same messages.
        let bad = try folder.write(
            "unknown.yaml",
            "socket:\n  path: \(folder.file("d.sock"))\n  colour: blue\naccessories: []\n"
        )
        let start = try Self.run(["--config", bad], in: folder, tag: "start")
        #expect(start.status == .exited(1))
        #expect(start.stderr.contains("\(bad):3:") && start.stderr.contains("colour"), "\(start.stderr)")
        #expect(access(folder.file("d.sock"), F_OK) != 0, "no socket was created")
    }
}
