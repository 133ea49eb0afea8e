import AccessoryTestSupport
import ControlProtocol
import ControlServer
import Glibc
import IOLoop
import SystemCalls
import Testing

@Suite("The socket file: stale, live, not a socket, mode, group, removal")
struct SocketFileTests {
    /// Leaves a socket file nobody listens on at `path` (as a crashed daemon does).
    private func makeStaleSocket(at path: String) throws {
        let fd = try Socket.unixStream()
        try Socket.bind(fd.rawValue, .path(path))
        fd.close()
    }

    private func status(_ path: String) throws -> FileStatus? { try FileIO.status(ofPath: path) }

    @Test("a stale socket file is replaced and the new socket serves")
    func staleReplaced() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("ctl.sock")
        try makeStaleSocket(at: path)
        let before = try #require(try status(path))
        let socket = try ListeningSocket(path: path)
        let after = try #require(try status(path))
        #expect(after.kind == .socket && after.inode != before.inode)
        let client = try TestClient(path: path)  // connects: someone listens now
        client.close()
        socket.close()
        #expect(try status(path) == nil)
    }

    @Test("a live socket is refused with a clear error and left alone")
    func liveRefused() throws {
        try withServer { h in
            let before = try #require(try status(h.path))
            #expect {
                _ = try ListeningSocket(path: h.path)
            } throws: { error in
                guard let error = error as? ControlServerError, case .alreadyListening = error else { return false }
                return error.description.contains("another accessoryd is already listening on \(h.path)")
            }
            #expect(try status(h.path) == before)
            #expect(try h.client().call(listRequest(id: 1))?.result != nil)
            // Nothing left behind: the socket is the folder's only entry.
            #expect(try FileIO.listDirectory(h.directory.path) == [String(h.path.split(separator: "/").last!)])
        }
    }

    @Test("a regular file, a directory or a symlink at the path is refused and never touched")
    func notASocketRefused() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = dir.file("file.sock")
        let fd = try FileIO.open(file, flags: FileIO.OpenFlag.readWrite | O_CREAT, mode: 0o644)
        _ = try FileIO.write(fd.rawValue, Array("precious".utf8))
        fd.close()
        let directory = dir.file("dir.sock")
        #expect(mkdir(directory, 0o755) == 0)
        let link = dir.file("link.sock")
        try FileIO.symlink(target: "/nonexistent", at: link)

        for (path, kind) in [(file, "a regular file"), (directory, "a directory"), (link, "a symbolic link")] {
            let before = try #require(try status(path))
            #expect {
                _ = try ListeningSocket(path: path)
            } throws: { error in
                guard let error = error as? ControlServerError, case .notASocket(_, let k) = error else { return false }
                return k == kind && error.description.contains("refusing to replace it")
            }
            #expect(try status(path) == before)
        }
        let content = try FileIO.open(file, flags: FileIO.OpenFlag.readOnly)
        #expect(try FileIO.read(content.rawValue, max: 100) == Array("precious".utf8))
    }

    @Test("mode 0660 by default, other modes as asked")
    func modes() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        for (name, mode) in [("a.sock", nil), ("b.sock", UInt32(0o600)), ("c.sock", UInt32(0o666))]
            as [(String, UInt32?)]
        {
            let path = dir.file(name)
            let socket: ListeningSocket
            if let mode {
                socket = try ListeningSocket(path: path, mode: mode)
            } else {
                socket = try ListeningSocket(path: path)
            }
            #expect(try status(path)?.permissions == (mode ?? 0o660))
            #expect(try status(path)?.kind == .socket)
            socket.close()
        }
    }

    @Test("the socket's group, by name or id; an unknown group is an error")
    func group() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let groupName = "nogroup"
        let gid = try #require(try UserDatabase.groupID(named: groupName))
        let byName = try ListeningSocket(path: dir.file("a.sock"), group: .name(groupName))
        #expect(try status(dir.file("a.sock"))?.group == gid)
        byName.close()
        let byID = try ListeningSocket(path: dir.file("b.sock"), group: .id(4242))
        #expect(try status(dir.file("b.sock"))?.group == 4242)
        byID.close()
        #expect(throws: ControlServerError.unknownGroup("no-such-group-here")) {
            _ = try ListeningSocket(path: dir.file("c.sock"), group: .name("no-such-group-here"))
        }
        #expect(try status(dir.file("c.sock")) == nil)
    }

    @Test("a missing directory, an unwritable directory, an over-long path: clear errors")
    func directoryErrors() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let missing = dir.file("nope/ctl.sock")
        #expect(throws: ControlServerError.directoryMissing(path: missing, directory: dir.file("nope"))) {
            _ = try ListeningSocket(path: missing)
        }

        // This test runs as root, for whom every directory is writable: the kernel's answer for
        // anyone else (EACCES from bind) is injected, on this thread only.
        let me = pthread_self()
        let token = FaultInjection.install { name, _ in
            name == .bind && pthread_equal(pthread_self(), me) != 0 ? .error(.permissionDenied) : nil
        }
        let path = dir.file("ctl.sock")
        let expected = ControlServerError.directoryNotWritable(path: path, directory: dir.path, uid: geteuid())
        #expect(throws: expected) { _ = try ListeningSocket(path: path) }
        FaultInjection.remove(token)
        #expect(expected.description.contains("is not writable by uid"))
        #expect(try status(path) == nil)

        let long = dir.path + "/" + String(repeating: "s", count: 100) + ".sock"
        #expect(throws: ControlServerError.pathTooLong(path: long, maxBytes: ListeningSocket.maxPathBytes)) {
            _ = try ListeningSocket(path: long)
        }
    }

    @Test("the socket file is removed at shutdown, but only if it is still ours")
    func removalOnShutdown() throws {
        try withServer { h in
            #expect(h.shutdownServer())
            let remaining = try status(h.path)
            #expect(remaining == nil)
            #expect((try? TestClient(path: h.path)) == nil)
        }
        try withServer { h in
            // Someone else's socket took the name meanwhile: it must survive our shutdown.
            try FileIO.unlink(h.path)
            try makeStaleSocket(at: h.path)
            let theirs = try #require(try status(h.path))
            #expect(h.shutdownServer())
            #expect(try status(h.path) == theirs)
        }
    }

    @Test("an inherited listening fd (socket activation) is adopted; a non-listening one is refused")
    func adoptedDescriptor() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("activated.sock")
        let raw = try Socket.unixStream()
        try Socket.bind(raw.rawValue, .path(path))
        try Socket.listen(raw.rawValue)
        let fdNumber = raw.release()
        let socket = try ListeningSocket(listeningFD: fdNumber)
        #expect(socket.path == nil)
        #expect(socket.displayName.contains("socket activation"))
        let loop = try IOLoop.spawn(name: "ctl-adopt")
        defer { loop.shutdown() }
        let server = ControlServer(loop: loop, socket: socket, handler: TestHandler())
        server.start()
        #expect(try TestClient(path: path).call(listRequest(id: 1))?.result != nil)
        let done = Shared(false)
        server.beginShutdown { done.mutate { $0 = true } }
        #expect(Wait.until(seconds: 5) { done.value })
        // systemd owns the file: it stays.
        #expect(try status(path)?.kind == .socket)

        let plain = try Socket.unixStream()
        #expect(throws: ControlServerError.notAListeningSocket(fd: plain.rawValue)) {
            _ = try ListeningSocket(listeningFD: plain.rawValue)
        }
        let pipe = try FileIO.pipe()
        #expect(throws: ControlServerError.notAListeningSocket(fd: pipe.first.rawValue)) {
            _ = try ListeningSocket(listeningFD: pipe.first.rawValue)
        }
        plain.close()
    }
}
