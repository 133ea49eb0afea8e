import Glibc
import SystemCalls
import Testing

@testable import TrafficTrace

/// Trace files where another local user may be hostile: a file of theirs planted at the trace's
/// name (0666, to read what follows) is refused and left as it was; a folder every user may
/// write (not sticky) is refused; and rotation leaves no moment at which a file of theirs could
/// take the name and be written to. Planting as another uid needs root; skipped otherwise.
///
/// Threading: each test on its own thread, in its own temporary folder.
@Suite("trace files: another user's file or folder is not used")
struct TraceFileSafetyTests {
    static let attacker: uid_t = 65533
    static var notRoot: Bool { geteuid() != 0 }

    /// A file of the attacker's at `path`, mode 0666, holding `text`.
    static func plant(_ path: String, _ text: String = "") throws {
        try FileIO.writeFile(path, text, mode: 0o666)
        try #require(chown(path, attacker, attacker) == 0 && chmod(path, 0o666) == 0)
    }

    @Test("another user's file at the name is refused, and left as it was", .disabled(if: notRoot, "needs root"))
    func anotherUsersFileIsRefused() throws {
        let folder = try TemporaryFolder()
        #expect(chmod(folder.path, 0o1777) == 0)  // as /tmp: others may make names, sticky
        let path = folder.path + "/modem.trace"
        try Self.plant(path, "bait")
        let refused = #expect(throws: TraceError.self) {
            try RotatingTraceFile.open(path: path, maxBytes: 4_096, keep: 1)
        }
        #expect(
            refused?.description.contains("belongs to uid \(Self.attacker)") == true,
            "\(String(describing: refused))"
        )
        #expect(FileIO.readText(path) == "bait")
        #expect(try FileIO.status(ofPath: path)?.owner == Self.attacker)
    }

    @Test("a folder every user may write, not sticky, is refused")
    func aFolderOpenToEveryoneIsRefused() throws {
        let folder = try TemporaryFolder()
        #expect(chmod(folder.path, 0o777) == 0)
        let refused = #expect(throws: TraceError.self) {
            try RotatingTraceFile.open(path: folder.path + "/t", maxBytes: 4_096, keep: 1)
        }
        #expect(refused?.description.contains("lets other users add or replace names in it") == true)
        #expect(folder.names.isEmpty, "a file was made in the refused folder")
    }

    /// What the planting rule did: the descriptor of the planted file, kept to read what it got.
    struct Planted: Sendable {
        var fd: CInt = -1
    }

    @Test(
        "rotation: a file planted the moment the name is free gets nothing",
        .disabled(if: notRoot, "needs root")
    )
    func rotationLeavesNoGap() throws {
        let folder = try TemporaryFolder()
        #expect(chmod(folder.path, 0o1777) == 0)
        let path = folder.path + "/t"
        let old = path + ".1"
        let planted = Locked(Planted())
        // Before any system call of this process: once the rotation has given the current file
        // the name `t.1` while `t` is missing, the attacker makes `t` (0666, theirs). Raw Glibc
        // calls here, so the rule does not call itself.
        let token = FaultInjection.install { _, _ in
            planted.withLock { p in
                guard p.fd < 0, access(old, F_OK) == 0, access(path, F_OK) != 0 else { return }
                let fd = Glibc.open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
                guard fd >= 0 else { return }
                _ = fchown(fd, Self.attacker, Self.attacker)
                _ = fchmod(fd, 0o666)
                p.fd = fd
            }
            return nil
        }
        defer { FaultInjection.remove(token) }
        let file = try RotatingTraceFile.open(path: path, maxBytes: 100, keep: 1)
        let record = Array(String(repeating: "r", count: 59).utf8) + [0x0A]
        for _ in 0..<3 { try record.withUnsafeBufferPointer { try file.write(record: $0) } }
        file.close()
        FaultInjection.remove(token)

        let fd = planted.withLock { $0.fd }
        defer { if fd >= 0 { close(fd) } }
        if fd >= 0 {
            var buffer = [UInt8](repeating: 0, count: 4_096)
            let got = pread(fd, &buffer, buffer.count, 0)
            #expect(got == 0, "the attacker's file got \(got) bytes of the trace")
        }
        print(
            "rotation: the attacker \(fd >= 0 ? "found a moment to plant t (it got nothing)" : "never found t missing")"
        )
        let status = try #require(try FileIO.status(ofPath: path))
        #expect(status.owner == geteuid() && status.linkCount == 1)
        #expect(try FileIO.readFile(path) == record)
        #expect(try FileIO.readFile(old) == record)
    }
}
