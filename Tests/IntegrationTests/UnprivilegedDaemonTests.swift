import AccessoryTestSupport
import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// The daemon as it is deployed: not root, in the `dialout` group, with one writable runtime
/// directory. It serves a pty it may open (root:dialout 0660, like /dev/ttyUSB0), and every
/// path it creates, writes, renames, binds or removes, as `strace` sees it, is in its runtime
/// directory or is the device it serves.
///
/// Threading: the test's thread; it owns the scenario's processes.
@Suite struct UnprivilegedDaemonTests {
    static let setpriv = ExternalProgram.locate("setpriv")
    static let strace = ExternalProgram.locate("strace")

    static var unavailableReason: String? {
        if getuid() != 0 { return "running the daemon as another uid with setpriv needs root" }
        if let missing = ExternalProgram.missing("setpriv", "strace") { return missing }
        if getgrnam("dialout") == nil { return "there is no dialout group" }
        return nil
    }

    /// The calls that can change the file system (or bind a socket file), traced per process.
    static let traced =
        "trace=open,openat,creat,mkdir,mkdirat,unlink,unlinkat,rename,renameat,renameat2,link,linkat,"
        + "symlink,symlinkat,chmod,fchmodat,chown,lchown,fchownat,truncate,mknod,mknodat,bind"

    @Test(.enabled(if: unavailableReason == nil, "\(unavailableReason ?? "")"))
    func asNobodyInDialoutItServesAPtyAndWritesOnlyInItsRuntimeDirectory() throws {
        let s = try Scenario()
        defer { s.finish() }
        let dialout = try #require(getgrnam("dialout")).pointee.gr_gid
        let run = s.directory.file("run")
        try #require(mkdir(run, 0o700) == 0 && chown(run, 65534, 65534) == 0)
        s.runtimeDirectory = run
        s.socketPath = run + "/accessoryd.sock"
        // The simulator runs as root; its pty slave is made root:dialout 0660, like a USB serial
        // adapter's node, so only the group lets the daemon open it.
        let link = try s.simulator("modem")
        let device = try FileIO.readLink(link)
        try #require(chown(device, 0, dialout) == 0 && chmod(device, 0o660) == 0)
        let tracePrefix = s.directory.file("trace")
        s.launcher = [
            Self.strace, "-ff", "-qq", "-y", "-o", tracePrefix, "-e", Self.traced,
            Self.setpriv, "--reuid=65534", "--regid=65534", "--groups=\(dialout)",
        ]
        try s.startDaemon(accessories: [s.lineAccessory("modem")])

        let daemonPid = try #require(s.daemon?.child.children.first)
        let uidLine =
            TemporaryDirectory.contents(of: "/proc/\(daemonPid)/status")
            .split(separator: "\n").first { $0.hasPrefix("Uid:") } ?? ""
        #expect(uidLine.split(separator: "\t").dropFirst().allSatisfy { $0 == "65534" }, "\(uidLine)")
        let client = try s.connect()
        #expect(try client.call("transact", Params.transfer("modem", "AT")).frameTexts == ["AT"])
        client.close()
        #expect(s.stopDaemon() == .exited(0))

        // Every successful call that writes a path, from every process of the daemon.
        var written: [String] = []
        for name in try Self.files(in: s.directory.path) where name.hasPrefix("trace.") {
            for line in s.directory.read(name).split(separator: "\n") {
                written += Self.writtenPaths(String(line))
            }
        }
        let allowed = { (path: String) in
            path == run || path.hasPrefix(run + "/") || path == device || path == link
        }
        let outside = written.filter { !allowed($0) }
        print("non-root daemon: \(written.count) written paths traced, \(Set(written).sorted()); outside: \(outside)")
        #expect(written.contains(s.socketPath), "the socket's bind was not traced: \(written)")
        #expect(outside.isEmpty, "written outside the runtime directory: \(outside)")
    }

    /// The paths a traced call wrote, created or removed (empty for reads and failed calls).
    static func writtenPaths(_ line: String) -> [String] {
        guard let open = line.firstIndex(of: "("), !line.hasSuffix("?") else { return [] }
        let call = String(line[..<open])
        // A failed call (`… = -1 EACCES (Permission denied)`) changed nothing.
        if let equals = line.lastIndex(of: "="),
            line[line.index(after: equals)...].drop(while: { $0 == " " })
                .hasPrefix("-1")
        {
            return []
        }
        // A name relative to a directory descriptor (the *at calls) is joined to the directory,
        // which `strace -y` prints as `3</its/path>` just before the name.
        let parts = line.split(separator: "\"", omittingEmptySubsequences: false).map(String.init)
        let quoted = parts.indices.filter { $0 % 2 == 1 }.map { i -> String in
            let name = parts[i]
            guard !name.hasPrefix("/"), let close = parts[i - 1].lastIndex(of: ">"),
                let open = parts[i - 1][..<close].lastIndex(of: "<")
            else { return name }
            return String(parts[i - 1][parts[i - 1].index(after: open)..<close]) + "/" + name
        }
        switch call {
        case "open", "openat":
            let writes = ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC"].contains { line.contains($0) }
            return writes ? Array(quoted.prefix(1)) : []
        case "bind":
            return line.contains("AF_UNIX") ? Array(quoted.prefix(1)) : []
        default:
            return quoted
        }
    }

    static func files(in path: String) throws -> [String] {
        guard let dir = opendir(path) else { throw HarnessError("cannot list \(path)") }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            names.append(
                withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            )
        }
        return names
    }
}
