import AccessoryConfig
import Glibc
import SystemCalls
import Testing

@testable import AccessoryCore

/// Another local user in the folders a view is published in: the temporary names of the link
/// cannot be made first (they are unpredictable), and a runtime directory of theirs, even
/// without `tty/`, is refused before anything is made, as docs/views.md says. Planting as another
/// uid needs root; skipped otherwise.
///
/// Threading: each test on its own thread, in its own temporary folder.
@Suite("pty views: names and folders another user made first")
struct ViewLinkSquatTests {
    static let attacker: uid_t = 65533
    static var notRoot: Bool { geteuid() != 0 }

    @Test(
        "every name of the form .<view>.<pid>.<n> made first by another user: the view is published all the same",
        .disabled(if: notRoot, "needs root")
    )
    func predictableNamesTakenFirst() throws {
        let folder = try FileIO.makeTemporaryDirectory(prefix: "/tmp/accessoryd-viewsquat-")
        defer {
            for name in (try? FileIO.listDirectory(folder)) ?? [] { unlink(folder + "/" + name) }
            rmdir(folder)
        }
        #expect(chmod(folder, 0o1777) == 0)  // sticky and open to all, as /tmp: a folder views may use
        for n in 0...ViewLink.temporaryNameAttempts + 1 {
            let squat = folder + "/.gps.\(getpid()).\(n)"
            try #require(symlink("/nowhere", squat) == 0 && lchown(squat, Self.attacker, Self.attacker) == 0)
        }
        let link = ViewLink(path: folder + "/gps")
        try link.publish(target: "/dev/pts/0")
        #expect(try FileIO.readLink(link.path) == "/dev/pts/0")
        let left = ((try? FileIO.listDirectory(folder)) ?? []).filter { !$0.hasPrefix(".gps.\(getpid()).") }
        #expect(left == ["gps"], "a temporary name was left: \(left)")
    }

    @Test(
        "a runtime directory of another user's without tty/: the view is a configuration error, nothing is made",
        .disabled(if: notRoot, "needs root")
    )
    func plantedRuntimeDirectoryWithoutTTYFolder() throws {
        let folder = try FileIO.makeTemporaryDirectory(prefix: "/tmp/accessoryd-viewrt-")
        defer { rmdir(folder) }
        #expect(chown(folder, Self.attacker, Self.attacker) == 0 && chmod(folder, 0o755) == 0)
        let c = try ViewBadInputTests.configuration("      - {pty: gps, mode: monitor}")
        let found = ViewPreflight.issues(c, runtimeDirectory: folder).map(\.description)
        #expect(found.count == 1, "\(found)")
        #expect(
            found.first?.contains(
                "accessories[0].views[0].pty: cannot publish the view \(folder)/tty/gps: unsafe directory \(folder): "
                    + "it is owned by uid \(Self.attacker) (mode 0755)"
            ) == true,
            "\(found)"
        )
        #expect(((try? FileIO.listDirectory(folder)) ?? []).isEmpty)
    }
}
