import Glibc
import SystemCalls
import Testing

/// ``DirectorySafety``: the verdicts on each kind of directory, and `ensure` on real ones (a
/// directory chowned to another uid needs root; those cases are skipped otherwise).
///
/// Threading: each test on its own thread, in its own temporary folder.
@Suite("Directory safety: only this user's real directories are trusted")
struct DirectorySafetyTests {
    static func status(
        _ kind: FileStatus.Kind = .directory,
        owner: UInt32 = 1000,
        mode: UInt32 = 0o700
    ) -> FileStatus {
        FileStatus(kind: kind, permissions: mode, owner: owner)
    }

    /// A temporary folder for one test, removed with what the test left in it (one level).
    struct Folder {
        let path: String
        init() throws { path = try FileIO.makeTemporaryDirectory(prefix: "/tmp/dirsafety-") }
        func file(_ name: String) -> String { path + "/" + name }
        func remove() {
            for name in (try? FileIO.listDirectory(path)) ?? [] {
                let full = file(name)
                if (try? FileIO.status(ofPath: full))??.kind == .directory {
                    try? FileIO.removeDirectory(full)
                } else {
                    try? FileIO.unlink(full)
                }
            }
            try? FileIO.removeDirectory(path)
        }
    }

    @Test("a private directory: this user's, no group or other write bit, not a link")
    func privateRule() {
        let rule = DirectorySafety.privateTo(uid: 1000)
        #expect(rule.problem(path: "/d", status: Self.status()) == nil)
        #expect(rule.problem(path: "/d", status: Self.status(mode: 0o755)) == nil)
        #expect(
            rule.problem(path: "/d", status: Self.status(owner: 65534))
                == .ownedByAnother(path: "/d", owner: 65534, mode: 0o700, uid: 1000)
        )
        #expect(rule.problem(path: "/d", status: Self.status(owner: 0)) != nil, "root's is not this user's")
        #expect(
            rule.problem(path: "/d", status: Self.status(mode: 0o770))
                == .writableByOthers(path: "/d", owner: 1000, mode: 0o770)
        )
        #expect(rule.problem(path: "/d", status: Self.status(mode: 0o1777)) != nil, "sticky is not enough")
        #expect(
            rule.problem(path: "/d", status: Self.status(.symbolicLink, mode: 0o777))
                == .notADirectory(path: "/d", kind: "a symbolic link", owner: 1000)
        )
    }

    @Test("a publishing directory: this user's or root's, and world-writable only if sticky")
    func publishingRule() {
        let rule = DirectorySafety.publishingFor(uid: 1000)
        #expect(rule.problem(path: "/d", status: Self.status(owner: 0, mode: 0o755)) == nil)
        #expect(rule.problem(path: "/d", status: Self.status(owner: 0, mode: 0o1777)) == nil)
        #expect(rule.problem(path: "/d", status: Self.status(owner: 0, mode: 0o775)) == nil)
        #expect(rule.problem(path: "/d", status: Self.status(owner: 0, mode: 0o777)) != nil)
        #expect(rule.problem(path: "/d", status: Self.status(owner: 65534, mode: 0o755)) != nil)
        #expect(rule.problem(path: "/d", status: Self.status(.symbolicLink, owner: 0, mode: 0o777)) != nil)
    }

    @Test("the messages name the directory, its owner and mode, and what to do")
    func messages() {
        let owned = DirectorySafetyError.ownedByAnother(
            path: "/tmp/accessoryd-1000",
            owner: 65534,
            mode: 0o777,
            uid: 1000
        )
        #expect(owned.description.contains("/tmp/accessoryd-1000"))
        #expect(owned.description.contains("owned by uid 65534 (mode 0777)"))
        #expect(owned.description.contains("remove it"))
        let open = DirectorySafetyError.writableByOthers(path: "/x", owner: 1000, mode: 0o775)
        #expect(open.description.contains("mode 0775") && open.description.contains("chmod go-w /x"))
    }

    @Test("ensure creates a missing directory with mode 0700 and accepts it the second time")
    func ensureCreates() throws {
        let dir = try Folder()
        defer { dir.remove() }
        let path = dir.file("rt")
        let rule = DirectorySafety.privateTo(uid: geteuid())
        let made = try rule.ensure(path)
        #expect(made.kind == .directory && made.permissions == 0o700 && made.owner == geteuid())
        #expect(try rule.ensure(path) == made)
        try FileIO.removeDirectory(path)
    }

    @Test("ensure refuses a directory others may write, and leaves it as it was")
    func ensureRefuses() throws {
        let dir = try Folder()
        defer { dir.remove() }
        let rule = DirectorySafety.privateTo(uid: geteuid())
        let open = dir.file("open")
        try FileIO.makeDirectory(open, mode: 0o700)
        try FileIO.changeMode(open, to: 0o777)
        #expect(throws: DirectorySafetyError.writableByOthers(path: open, owner: geteuid(), mode: 0o777)) {
            try rule.ensure(open)
        }
        #expect(try FileIO.status(ofPath: open)?.permissions == 0o777, "ensure changed a directory it refused")
        try FileIO.removeDirectory(open)
    }

    @Test("a link this user made, in a folder only it may write, to a good directory, is followed")
    func trustedLinkFollowed() throws {
        let dir = try Folder()  // mkdtemp: this user's, 0700
        defer { dir.remove() }
        let target = dir.file("target")
        try FileIO.makeDirectory(target, mode: 0o755)
        let link = dir.file("link")
        try FileIO.symlink(target: target, at: link)
        let rule = DirectorySafety.privateTo(uid: geteuid())
        let found = try rule.ensure(link)
        let real = try FileIO.status(ofPath: target)
        #expect(found.kind == .directory && found.inode == real?.inode)
        // The same link leading to a directory others may write: refused, naming both.
        try FileIO.changeMode(target, to: 0o777)
        #expect(
            throws: DirectorySafetyError.unsafeLinkTarget(
                path: link,
                target: target,
                .writableByOthers(path: target, owner: geteuid(), mode: 0o777)
            )
        ) { try rule.ensure(link) }
        try FileIO.unlink(link)
        try FileIO.removeDirectory(target)
    }

    @Test("a link in a folder others may write is refused, even if this user made it")
    func linkInAnOpenFolderRefused() throws {
        let dir = try Folder()
        defer { dir.remove() }
        let target = dir.file("target")
        try FileIO.makeDirectory(target, mode: 0o700)
        let shared = dir.file("shared")
        try FileIO.makeDirectory(shared, mode: 0o700)
        try FileIO.changeMode(shared, to: 0o1777)  // as /tmp: sticky, but anyone could have made the name
        let link = shared + "/link"
        try FileIO.symlink(target: target, at: link)
        #expect(throws: DirectorySafetyError.notADirectory(path: link, kind: "a symbolic link", owner: geteuid())) {
            try DirectorySafety.privateTo(uid: geteuid()).ensure(link)
        }
        try FileIO.unlink(link)
        for p in [shared, target] { try FileIO.removeDirectory(p) }
    }

    @Test(
        "a link another user made, or to another user's directory, is refused",
        .enabled(if: geteuid() == 0, "chown to another uid needs root")
    )
    func plantedLinksRefused() throws {
        let dir = try Folder()
        defer { dir.remove() }
        let target = dir.file("target")
        try FileIO.makeDirectory(target, mode: 0o700)
        let link = dir.file("link")
        try FileIO.symlink(target: target, at: link)
        try #require(lchown(link, 65534, 65534) == 0)
        let rule = DirectorySafety.privateTo(uid: 0)
        #expect(throws: DirectorySafetyError.notADirectory(path: link, kind: "a symbolic link", owner: 65534)) {
            try rule.ensure(link)
        }
        try #require(lchown(link, 0, 0) == 0)
        try FileIO.changeOwner(target, owner: 65534, group: 65534)
        #expect(
            throws: DirectorySafetyError.unsafeLinkTarget(
                path: link,
                target: target,
                .ownedByAnother(path: target, owner: 65534, mode: 0o700, uid: 0)
            )
        ) { try rule.ensure(link) }
        // The message says what the link is and why where it leads is refused.
        let refusal = DirectorySafetyError.unsafeLinkTarget(
            path: link,
            target: target,
            .ownedByAnother(path: target, owner: 65534, mode: 0o700, uid: 0)
        )
        let message = "\(refusal)"
        #expect(message.hasPrefix("unsafe directory \(link): it is a symbolic link to \(target), which is refused: "))
        try FileIO.unlink(link)
        try FileIO.removeDirectory(target)
    }

    @Test("ensure refuses another user's directory", .enabled(if: geteuid() == 0, "chown to another uid needs root"))
    func ensureRefusesAnotherUsers() throws {
        let dir = try Folder()
        defer { dir.remove() }
        let path = dir.file("planted")
        try FileIO.makeDirectory(path, mode: 0o700)
        try FileIO.changeOwner(path, owner: 65534, group: 65534)
        #expect(throws: DirectorySafetyError.ownedByAnother(path: path, owner: 65534, mode: 0o700, uid: 0)) {
            try DirectorySafety.privateTo(uid: 0).ensure(path)
        }
        try FileIO.removeDirectory(path)
    }
}

/// ``DaemonPaths``: where the daemon keeps its files and where clients look for its socket.
///
/// Threading: pure functions; any thread.
@Suite("Daemon paths: one rule for the daemon and every client")
struct DaemonPathsTests {
    static func env(_ values: [String: String]) -> (String) -> String? { { values[$0] } }

    @Test("the runtime directory: flag, $RUNTIME_DIRECTORY, root's, $XDG_RUNTIME_DIR, /tmp")
    func runtimeDirectory() {
        #expect(
            DaemonPaths.runtimeDirectory(explicit: "/x", environment: Self.env(["RUNTIME_DIRECTORY": "/y"]), uid: 5)
                == "/x"
        )
        #expect(
            DaemonPaths.runtimeDirectory(explicit: nil, environment: Self.env(["RUNTIME_DIRECTORY": "/y:/z"]), uid: 5)
                == "/y"
        )
        #expect(
            DaemonPaths.runtimeDirectory(
                explicit: nil,
                environment: Self.env(["XDG_RUNTIME_DIR": "/run/user/0"]),
                uid: 0
            ) == "/run/accessoryd"
        )
        #expect(
            DaemonPaths.runtimeDirectory(
                explicit: nil,
                environment: Self.env(["XDG_RUNTIME_DIR": "/run/user/1000/"]),
                uid: 1000
            )
                == "/run/user/1000/accessoryd"
        )
        #expect(
            DaemonPaths.runtimeDirectory(explicit: nil, environment: Self.env([:]), uid: 1000) == "/tmp/accessoryd-1000"
        )
        #expect(
            DaemonPaths.runtimeDirectory(
                explicit: nil,
                environment: Self.env(["XDG_RUNTIME_DIR": "relative"]),
                uid: 1000
            )
                == "/tmp/accessoryd-1000",
            "a relative $XDG_RUNTIME_DIR is ignored"
        )
    }

    @Test("the client's socket: flag, $ACCESSORYD_SOCKET, the system socket if it exists, the per-user one")
    func clientSocket() {
        let user = Self.env(["XDG_RUNTIME_DIR": "/run/user/1000"])
        func socket(_ explicit: String?, _ env: [String: String], systemExists: Bool) -> String {
            DaemonPaths.clientSocket(explicit: explicit, environment: Self.env(env), uid: 1000) {
                systemExists && $0 == DaemonPaths.systemSocket
            }
        }
        #expect(socket("/s", ["ACCESSORYD_SOCKET": "/e"], systemExists: true) == "/s")
        #expect(socket(nil, ["ACCESSORYD_SOCKET": "/e"], systemExists: true) == "/e")
        #expect(socket(nil, ["ACCESSORYD_SOCKET": ""], systemExists: true) == "/run/accessoryd/accessoryd.sock")
        #expect(
            socket(nil, ["XDG_RUNTIME_DIR": "/run/user/1000"], systemExists: false)
                == "/run/user/1000/accessoryd/accessoryd.sock"
        )
        #expect(socket(nil, [:], systemExists: false) == "/tmp/accessoryd-1000/accessoryd.sock")
        // What a client looks for is where a daemon run by the same user listens.
        #expect(
            DaemonPaths.clientSocket(explicit: nil, environment: user, uid: 1000, exists: { _ in false })
                == DaemonPaths.runtimeDirectory(explicit: nil, environment: user, uid: 1000) + "/accessoryd.sock"
        )
    }
}
