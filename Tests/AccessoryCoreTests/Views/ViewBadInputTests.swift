import AccessoryConfig
import AccessoryTestSupport
import Glibc
import SystemCalls
import Testing

@testable import AccessoryCore

/// What is at a view's path, and who owns it, when the daemon did not put it there.
@Suite("pty views: bad input, nothing half-created, foreign links never followed", .serialized)
struct ViewBadInputTests {
    final class Folder {
        let path: String
        init() throws { path = try FileIO.makeTemporaryDirectory(prefix: "/tmp/accessoryd-viewbad-") }
        deinit {
            for name in (try? FileIO.listDirectory(path)) ?? [] { try? FileIO.unlink(path + "/" + name) }
            try? FileIO.removeDirectory(path)
        }
        func names() -> [String] { ((try? FileIO.listDirectory(path)) ?? []).sorted() }
    }

    static func configuration(_ views: String, socket: String = "/tmp/none.sock") throws -> Configuration {
        try ConfigurationLoader.load(
            yaml: """
                socket: {path: \(socket)}
                accessories:
                  - name: a
                    path: /dev/ttyUSB0
                    views:
                \(views)
                """,
            file: "test.yaml"
        )
    }

    @Test("a view in a folder that does not exist: a configuration error with file and line; nothing made")
    func missingFolder() throws {
        let c = try Self.configuration("      - {pty: /tmp/accessoryd-no-such-folder/gps, mode: monitor}")
        let found = ViewPreflight.issues(c, runtimeDirectory: "/tmp").map(\.description)
        #expect(
            found == [
                "test.yaml:6: accessories[0].views[0].pty: cannot publish the view "
                    + "/tmp/accessoryd-no-such-folder/gps: the directory /tmp/accessoryd-no-such-folder does not "
                    + "exist (create it, or give a relative path to use the runtime directory's tty/ folder)"
            ]
        )
        #expect(
            throws: ViewError.directoryMissing(
                path: "/tmp/accessoryd-no-such-folder/gps",
                directory: "/tmp/accessoryd-no-such-folder"
            )
        ) {
            try ViewLink(path: "/tmp/accessoryd-no-such-folder/gps").publish(target: "/dev/pts/0")
        }
        #expect((try? FileIO.status(ofPath: "/tmp/accessoryd-no-such-folder")) == nil)
    }

    @Test("a regular file at the path is an error and stays as it was")
    func regularFile() throws {
        let f = try Folder()
        try FileIO.writeFile(f.path + "/gps", "precious")
        let c = try Self.configuration("      - {pty: \(f.path)/gps, mode: monitor}")
        let found = ViewPreflight.issues(c, runtimeDirectory: "/tmp").map(\.description)
        #expect(found.count == 1 && found[0].contains("a regular file owned by uid 0 is already there"))
        #expect(throws: ViewError.self) { try ViewLink(path: f.path + "/gps").publish(target: "/dev/pts/0") }
        #expect(FileIO.readText(f.path + "/gps") == "precious")
        #expect(f.names() == ["gps"])
    }

    @Test("a symbolic link the daemon did not make is neither followed nor replaced")
    func foreignLink() throws {
        let f = try Folder()
        try FileIO.writeFile(f.path + "/target", "untouched")
        try FileIO.symlink(target: f.path + "/target", at: f.path + "/gps")
        let link = ViewLink(path: f.path + "/gps")
        #expect(throws: ViewError.foreignLink(path: f.path + "/gps", target: f.path + "/target", owner: 0)) {
            try link.publish(target: "/dev/pts/0")
        }
        #expect(try FileIO.readLink(f.path + "/gps") == f.path + "/target")
        #expect(FileIO.readText(f.path + "/target") == "untouched")
        // Removing is as careful: a link that is not the view's own stays.
        link.remove(target: "/dev/pts/0")
        #expect(f.names() == ["gps", "target"])
        let c = try Self.configuration("      - {pty: \(f.path)/gps, mode: monitor}")
        #expect(ViewPreflight.issues(c, runtimeDirectory: "/tmp").count == 1)
    }

    @Test("another user's link into /dev/pts is foreign too")
    func otherUsersPtyLink() throws {
        let f = try Folder()
        try FileIO.symlink(target: "/dev/pts/99", at: f.path + "/gps")
        let dir = try FileIO.openDirectory(f.path)
        try FileIO.changeOwner(of: "gps", in: dir.rawValue, owner: 65534, group: 65534)
        #expect(throws: ViewError.foreignLink(path: f.path + "/gps", target: "/dev/pts/99", owner: 65534)) {
            try ViewLink(path: f.path + "/gps").publish(target: "/dev/pts/0")
        }
    }

    @Test("a link an earlier run left (the daemon's user's, into /dev/pts) is replaced; no temporary name stays")
    func staleOwnLink() throws {
        let f = try Folder()
        try FileIO.symlink(target: "/dev/pts/99", at: f.path + "/gps")
        try ViewLink(path: f.path + "/gps").publish(target: "/dev/pts/7")
        #expect(try FileIO.readLink(f.path + "/gps") == "/dev/pts/7")
        #expect(f.names() == ["gps"])
        ViewLink(path: f.path + "/gps").remove(target: "/dev/pts/7")
        #expect(f.names().isEmpty)
    }

    @Test("an unknown owner or group is a configuration error naming it")
    func unknownOwnerGroup() throws {
        let f = try Folder()
        let c = try Self.configuration(
            "      - {pty: \(f.path)/gps, mode: monitor, owner: nosuchuser-xyz, group: nosuchgroup-xyz}"
        )
        let found = ViewPreflight.issues(c, runtimeDirectory: "/tmp").map(\.description)
        #expect(
            found == [
                #"test.yaml:6: accessories[0].views[0].owner: no user called "nosuchuser-xyz" (owner of a view)"#
            ]
        )
        let g = try Self.configuration("      - {pty: \(f.path)/gps, mode: monitor, group: nosuchgroup-xyz}")
        #expect(
            ViewPreflight.issues(g, runtimeDirectory: "/tmp").map(\.description) == [
                #"test.yaml:6: accessories[0].views[0].group: no group called "nosuchgroup-xyz" (group of a view)"#
            ]
        )
        #expect(f.names().isEmpty)
    }

    @Test("a relative path and an absolute one that meet in the runtime directory, or a view on the socket")
    func pathConflicts() throws {
        let f = try Folder()
        let c = try Self.configuration(
            "      - {pty: gps, mode: monitor}\n      - {pty: \(f.path)/tty/gps, mode: shared}\n"
                + "      - {pty: \(f.path)/s.sock, mode: shared}",
            socket: f.path + "/s.sock"
        )
        let found = ViewPreflight.issues(c, runtimeDirectory: f.path).map(\.description)
        #expect(
            found == [
                "test.yaml:7: accessories[0].views[1].pty: \(f.path)/tty/gps is also the path of a view of accessory \"a\"",
                "test.yaml:8: accessories[0].views[2].pty: \(f.path)/s.sock is also the control socket (socket.path)",
            ]
        )
    }
}
