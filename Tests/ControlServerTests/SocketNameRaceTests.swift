import ControlServer
import Glibc
import Synchronization
import SystemCalls
import Testing

/// Another user who may write in the socket's directory tries to turn the daemon's `chmod` and
/// `chown` of its new socket onto a file of its choosing: at the moment the daemon sets the
/// socket's mode or group, every entry of the directory is swapped for a symbolic link to a
/// root-owned 0600 file (a directory entry for a directory of links). The file keeps its mode
/// and group whatever the daemon does.
///
/// Threading: the test's thread; the attack runs on it too, from a fault-injection rule that
/// fires just before the call that sets the mode or group (the window a real attacker races).
@Suite("The socket's names cannot be swapped under the daemon")
struct SocketNameRaceTests {
    @Test("a symlink swapped in while the socket gets its mode and group leaves the target alone")
    func swappedNamesLeaveTheTargetAlone() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let sockets = dir.file("sockets")
        try FileIO.makeDirectory(sockets, mode: 0o700)
        defer { Self.removeTree(sockets) }
        let victim = dir.file("victim")
        let fd = try FileIO.open(victim, flags: FileIO.OpenFlag.readWrite | O_CREAT, mode: 0o600)
        fd.close()
        try FileIO.changeMode(victim, to: 0o600)
        let before = try #require(try FileIO.status(ofPath: victim))

        let me = pthread_self()
        let swaps = Atomic<Int>(0)
        let token = FaultInjection.install { name, _ in
            guard [.chmod, .chown, .fchmodat, .fchownat].contains(name), pthread_equal(pthread_self(), me) != 0,
                swaps.wrappingAdd(1, ordering: .relaxed).oldValue == 0
            else { return nil }
            Self.swapEveryEntry(of: sockets, forLinksTo: victim)
            return nil
        }
        defer { FaultInjection.remove(token) }
        let path = sockets + "/ctl.sock"
        let outcome: String
        do {
            let socket = try ListeningSocket(path: path, mode: 0o666, group: .id(4242))
            outcome = "created"
            socket.close()
        } catch {
            outcome = "\(error)"
        }
        let after = try #require(try FileIO.status(ofPath: victim))
        print("swap attack: \(swaps.load(ordering: .relaxed)) calls seen; creation: \(outcome); target \(after)")
        #expect(swaps.load(ordering: .relaxed) > 0, "the attack never ran: no mode or group call was seen")
        #expect(after.permissions == before.permissions, "the target's mode changed")
        #expect(after.group == before.group, "the target's group changed")
        #expect(after.owner == before.owner)
    }

    /// What an attacker with write access to `directory` can do to its entries: rename each
    /// away and put a symlink to `target` in its place (for a directory: a directory of its own
    /// whose entries, named as in the original, are such symlinks).
    static func swapEveryEntry(of directory: String, forLinksTo target: String) {
        for name in entries(of: directory) where !name.hasPrefix("moved-") {
            let full = directory + "/" + name
            var st = stat()
            guard lstat(full, &st) == 0 else { continue }
            let inner = (st.st_mode & S_IFMT) == S_IFDIR ? entries(of: full) : []
            guard Glibc.rename(full, directory + "/moved-" + name) == 0 else { continue }
            if (st.st_mode & S_IFMT) == S_IFDIR {
                mkdir(full, 0o755)
                for n in inner { symlink(target, full + "/" + n) }
            } else {
                symlink(target, full)
            }
        }
    }

    static func entries(of path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Removes `path` and what is in it, two levels deep (what the attack leaves), without
    /// following links.
    static func removeTree(_ path: String) {
        for name in entries(of: path) {
            let full = path + "/" + name
            var st = stat()
            guard lstat(full, &st) == 0 else { continue }
            if (st.st_mode & S_IFMT) == S_IFDIR {
                for inner in entries(of: full) { unlink(full + "/" + inner) }
                rmdir(full)
            } else {
                unlink(full)
            }
        }
        rmdir(path)
    }
}

/// The socket's directory itself: a symbolic link anyone else could have made is never followed,
/// a directory every user may write is refused unless sticky.
///
/// Threading: the test's thread.
@Suite("The socket's directory is checked before anything is made in it")
struct SocketDirectoryTests {
    @Test("a symbolic link others could have made as the socket's directory is refused, and nothing is made behind it")
    func linkedDirectoryRefused() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let real = dir.file("real")
        try FileIO.makeDirectory(real, mode: 0o700)
        // In a folder every user may write (sticky, as /tmp): whoever made the link, another
        // user could have made it first. (A link only root or this user can have made, in a
        // folder nobody else may write, is followed: DirectorySafetyTests.)
        let shared = dir.file("shared")
        try FileIO.makeDirectory(shared, mode: 0o700)
        try FileIO.changeMode(shared, to: 0o1777)
        let link = shared + "/link"
        try FileIO.symlink(target: real, at: link)
        defer { try? FileIO.unlink(link) }
        #expect {
            _ = try ListeningSocket(path: link + "/ctl.sock")
        } throws: { error in
            guard let error = error as? ControlServerError, case .unsafeDirectory(_, let problem) = error else {
                return false
            }
            return problem == .notADirectory(path: link, kind: "a symbolic link", owner: geteuid())
        }
        #expect(try FileIO.listDirectory(real).isEmpty)
        try FileIO.removeDirectory(real)
    }

    @Test("a directory every user may write is refused unless sticky")
    func worldWritableRefusedUnlessSticky() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let open = dir.file("open")
        try FileIO.makeDirectory(open, mode: 0o700)
        try FileIO.changeMode(open, to: 0o777)
        #expect(throws: ControlServerError.self) { _ = try ListeningSocket(path: open + "/ctl.sock") }
        #expect(try FileIO.listDirectory(open).isEmpty)
        try FileIO.changeMode(open, to: 0o1777)
        let socket = try ListeningSocket(path: open + "/ctl.sock")
        #expect(try FileIO.listDirectory(open) == ["ctl.sock"])
        socket.close()
        try FileIO.removeDirectory(open)
    }
}
