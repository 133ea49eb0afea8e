import SystemCalls

/// The steps that create a listening socket file at a path (see
/// ``ListeningSocket/init(path:mode:group:backlog:)``).
///
/// The socket is made inside a private directory of its own (`mkdtemp`: mode 0700, a name
/// nobody can predict) next to the final name, held open by descriptor. Its group and mode are
/// set through that descriptor (`fchownat` without following links, `fchmodat` on a name nobody
/// else can reach), and the final name is made from it (`linkat`/`renameat`). So no call ever
/// acts on a name another user could have replaced with a symbolic link meanwhile, and no
/// process-wide state (the umask) is touched: creations on several threads at once are safe.
/// The socket's directory itself is checked first (``DirectorySafety/publishingFor(uid:)``):
/// not a symbolic link, owned by this user or root, not writable by everyone unless sticky.
///
/// Threading: a value used once, on one thread.
struct SocketFileCreation {
    let path: String
    let mode: UInt32
    let group: SocketGroup?
    let backlog: Int32

    /// The name of the socket inside the private directory.
    static let innerName = "s"

    /// The socket's directory ("." for a bare name).
    var directory: String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        return slash == path.utf8.startIndex ? "/" : String(path[..<slash])
    }

    /// The private directory's `mkdtemp` prefix: `<directory>/.` and six random characters. With
    /// `/s` inside, the bound path is at most 9 bytes longer than the socket's own path.
    var privatePrefix: String { (directory == "/" ? "" : directory) + "/." }

    func run() throws(ControlServerError) -> ListeningSocket {
        guard !path.isEmpty, path.utf8.count <= ListeningSocket.maxPathBytes else {
            throw .pathTooLong(path: path, maxBytes: ListeningSocket.maxPathBytes)
        }
        let gid = try group?.resolve()
        try checkDirectory()
        // Refuse early (before creating anything) if the name is taken by a live socket or a file.
        _ = try ExistingSocketPath.check(path)
        let privatePath = try makePrivateDirectory()
        let privateDirectory = try openPrivateDirectory(privatePath)
        defer { removePrivateDirectory(privatePath, privateDirectory) }
        let fd = try bind(privatePath + "/" + Self.innerName, in: privateDirectory.rawValue)
        let file = try prepare(in: privateDirectory.rawValue, gid: gid, fd: fd.rawValue)
        try publish(from: privateDirectory.rawValue)
        return ListeningSocket(descriptor: fd, file: SocketFile(path: path, device: file.device, inode: file.inode))
    }

    /// The socket's directory: a real directory (never a symbolic link followed), this user's or
    /// root's, and not open to every user's renames.
    private func checkDirectory() throws(ControlServerError) {
        do {
            try DirectorySafety.publishingFor(uid: UserDatabase.effectiveUserID).check(directory)
        } catch {
            if case .cannotInspect(_, let e) = error, e.errno == .noSuchFileOrDirectory || e.errno == .notDirectory {
                throw .directoryMissing(path: path, directory: directory)
            }
            if case .cannotInspect(_, let e) = error, e.errno == .permissionDenied {
                throw .directoryNotWritable(path: path, directory: directory, uid: UserDatabase.effectiveUserID)
            }
            throw .unsafeDirectory(path: path, error)
        }
    }

    /// Creates the private directory; returns its path.
    private func makePrivateDirectory() throws(ControlServerError) -> String {
        let privatePath: String
        do {
            privatePath = try FileIO.makeTemporaryDirectory(prefix: privatePrefix)
        } catch {
            switch error.errno {
            case .permissionDenied, .notPermitted, .readOnlyFileSystem:
                throw .directoryNotWritable(path: path, directory: directory, uid: UserDatabase.effectiveUserID)
            case .noSuchFileOrDirectory, .notDirectory:
                throw .directoryMissing(path: path, directory: directory)
            default:
                throw .system("cannot create a private directory for the control socket next to \(path)", error)
            }
        }
        return privatePath
    }

    /// Opens the private directory (refusing a symbolic link), checking that what was opened is
    /// the directory just made: this user's, writable by nobody else. Removes it on failure.
    private func openPrivateDirectory(_ privatePath: String) throws(ControlServerError) -> OwnedFD {
        let fd: OwnedFD
        do { fd = try FileIO.openDirectory(privatePath) } catch {
            try? FileIO.removeDirectory(privatePath)
            throw .system("cannot open the private directory \(privatePath) (was it replaced?)", error)
        }
        let status: FileStatus
        do { status = try FileIO.status(ofDescriptor: fd.rawValue) } catch {
            removePrivateDirectory(privatePath, fd)
            throw .system("cannot inspect the private directory \(privatePath)", error)
        }
        if let problem = DirectorySafety.privateTo(uid: UserDatabase.effectiveUserID).problem(
            path: privatePath,
            status: status
        ) {
            removePrivateDirectory(privatePath, fd)
            throw .unsafeDirectory(path: path, problem)
        }
        return fd
    }

    /// Removes the private directory's socket name (the socket keeps its final name) and the
    /// directory, if its path still names it. The descriptor is closed by its owner.
    private func removePrivateDirectory(_ privatePath: String, _ fd: borrowing OwnedFD) {
        try? FileIO.unlink(Self.innerName, in: fd.rawValue)
        if let mine = try? FileIO.status(ofDescriptor: fd.rawValue),
            let named = try? FileIO.status(ofPath: privatePath),
            named.device == mine.device && named.inode == mine.inode
        {
            try? FileIO.removeDirectory(privatePath)
        }
    }

    /// Binds a new socket at `socketPath` (inside the private directory) and checks that the
    /// socket file appeared in the directory held open as `directory`: if the path was redirected
    /// meanwhile, it did not.
    private func bind(_ socketPath: String, in directory: CInt) throws(ControlServerError) -> OwnedFD {
        let fd: OwnedFD
        do { fd = try Socket.unixStream() } catch { throw .system("cannot create the control socket", error) }
        do {
            try Socket.bind(fd.rawValue, .path(socketPath))
        } catch {
            switch error.errno {
            case .permissionDenied, .notPermitted, .readOnlyFileSystem:
                throw .directoryNotWritable(path: path, directory: self.directory, uid: UserDatabase.effectiveUserID)
            case .noSuchFileOrDirectory, .notDirectory:
                throw .directoryMissing(path: path, directory: self.directory)
            default:
                throw .system("cannot bind the control socket at \(path)", error)
            }
        }
        return fd
    }

    /// Group, mode and listen, through the private directory's descriptor; returns the socket
    /// file's identity.
    private func prepare(in directory: CInt, gid: UInt32?, fd: CInt) throws(ControlServerError) -> FileStatus {
        let status: FileStatus?
        do { status = try FileIO.status(of: Self.innerName, in: directory) } catch {
            throw .system("cannot inspect the new control socket", error)
        }
        guard let status, status.kind == .socket, status.owner == UserDatabase.effectiveUserID else {
            throw .system(
                "the new control socket is not where it was bound (its directory was replaced)",
                SyscallError(.fstatat, .noSuchFileOrDirectory)
            )
        }
        if let gid, let group {
            do { try FileIO.changeOwner(of: Self.innerName, in: directory, group: gid) } catch {
                throw .cannotSetGroup(path: path, group: group.description, error)
            }
        }
        do { try FileIO.changeMode(of: Self.innerName, in: directory, to: mode) } catch {
            throw .system("cannot set mode \(String(mode, radix: 8)) on the control socket \(path)", error)
        }
        do { try Socket.listen(fd, backlog: backlog) } catch {
            throw .system("cannot listen on the control socket \(path)", error)
        }
        return status
    }

    /// Gives the socket its final name: a new link if the name is free (never replacing anything
    /// that appeared meanwhile), or an atomic rename over a stale socket. Checked again here, as
    /// another process may have acted since the first check.
    private func publish(from directory: CInt) throws(ControlServerError) {
        for _ in 0..<3 {
            switch try ExistingSocketPath.check(path) {
            case .absent:
                do {
                    try FileIO.link(Self.innerName, in: directory, as: path)
                } catch  where error.errno == .fileExists {
                    continue
                } catch {
                    throw .system("cannot create the control socket at \(path)", error)
                }
                return
            case .stale:
                do { try FileIO.rename(Self.innerName, in: directory, to: path) } catch {
                    throw .system("cannot replace the stale socket \(path)", error)
                }
                return
            }
        }
        throw .alreadyListening(path: path)
    }
}
