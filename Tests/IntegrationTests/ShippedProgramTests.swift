import AccessoryVersion
import Glibc
import SystemCalls
import Testing

/// What the three shipped programs are as files: no Foundation in the daemon, no ICU in any,
/// `--version` printing the one version the package is built with; and the daemon's own
/// option parser refusing what it cannot run with.
///
/// Threading: each test runs on its own test thread and owns the children it starts.
@Suite struct ShippedProgramTests {
    static let programs = ["accessoryd", "accessoryctl", "accessory-sim"]

    /// The daemon links no Foundation at all (its option parser is its own). accessoryctl and
    /// accessory-sim use swift-argument-parser, which imports FoundationEssentials: in this
    /// (dynamic) build they load libFoundationEssentials.so, in the shipped static build it is
    /// linked in (scripts/check-deb.sh checks that build's `ldd`). No program loads ICU or the
    /// rest of Foundation.
    @Test(arguments: programs)
    func loadsNoFoundationAndNoICU(program: String) throws {
        let needed = try ELFDynamic(path: try BuiltProducts.executable(program)).needed
        // libc is always there: an empty list would mean the reader found no dynamic section.
        #expect(needed.contains("libc.so.6"), "\(program) needs \(needed)")
        let allowed: Set<String> = program == "accessoryd" ? [] : ["libFoundationEssentials.so"]
        let foreign = needed.filter { name in
            let lower = name.lowercased()
            return (lower.contains("foundation") || lower.contains("icu")) && !allowed.contains(name)
        }
        #expect(foreign.isEmpty, "\(program) loads \(foreign)")
    }

    /// A command line the daemon cannot run with: exit status 64 (EX_USAGE), the reason and the
    /// usage on stderr, nothing started.
    @Test(arguments: [
        (["--confg", "x.yaml"], "unknown option '--confg' (did you mean '--config'?)"),
        (["--config"], "'--config' needs a value: --config <file>"),
        (["--config", "a.yaml", "--embedded-default"], "--embedded-default and --config exclude each other"),
        (["stray"], "unexpected argument 'stray'"),
    ])
    func daemonRefusesABadCommandLine(arguments: [String], message: String) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let child = try ChildRun(
            label: "accessoryd \(arguments)",
            executable: try BuiltProducts.executable("accessoryd"),
            arguments: arguments,
            stdoutPath: folder.file("out"),
            stderrPath: folder.file("err")
        )
        guard let ended = child.wait(seconds: 20) else {
            child.kill()
            Issue.record("accessoryd \(arguments) did not finish within 20 s")
            return
        }
        #expect(ended == .exited(64))
        #expect(child.stderr.hasPrefix("accessoryd: " + message), "\(child.stderr)")
        #expect(child.stderr.contains("USAGE: accessoryd [--config <file>]"), "\(child.stderr)")
        #expect(child.stdout.isEmpty)
    }

    @Test(arguments: programs)
    func printsItsVersion(program: String) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let child = try ChildRun(
            label: "\(program) --version",
            executable: try BuiltProducts.executable(program),
            arguments: ["--version"],
            stdoutPath: folder.file("out"),
            stderrPath: folder.file("err")
        )
        guard let ended = child.wait(seconds: 20) else {
            child.kill()
            Issue.record("\(program) --version did not finish within 20 s")
            return
        }
        #expect(ended == .exited(0), "\(child.stderr)")
        #expect(child.stdout == AccessoryVersion.line(program) + "\n")
    }
}
