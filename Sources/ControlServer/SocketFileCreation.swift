import SystemCalls

/// The steps that create a listening socket file at a path (see
/// ``ListeningSocket/init(path:mode:group:backlog:)``).
///
/// Threading: a value used once, on one thread.
struct SocketFileCreation {
    let path: String
    let mode: UInt32
    let group: SocketGroup?
    let backlog: Int32

    /// The socket's directory ("." for a bare name).
    var directory: String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        return slash == path.utf8.startIndex ? "/" : String(path[..<slash])
    }

    /// `<path>.new-<pid, 7 digits>`: unique per process, fixed length.
    var temporaryPath: String {
        let pid = String(UserDatabase.processID)
        return path + ".new-" + String(repeating: "0", count: max(0, 7 - pid.utf8.count)) + pid
    }

    func run() throws(ControlServerError) -> ListeningSocket {
        guard !path.isEmpty, path.utf8.count <= ListeningSocket.maxPathBytes else {
            throw .pathTooLong(path: path, maxBytes: ListeningSocket.maxPathBytes)
        }
        let gid = try group?.resolve()
        // Refuse early (before creating anything) if the name is taken by a live socket or a file.
        _ = try ExistingSocketPath.check(path)
        let temporary = temporaryPath
        try removeLeftover(temporary)
        let fd = try bind(temporary)
        do {
            let file = try prepare(temporary, gid: gid, fd: fd.rawValue)
            try publish(temporary)
            return ListeningSocket(descriptor: fd, file: SocketFile(path: path, device: file.device, inode: file.inode))
        } catch {
            try? FileIO.unlink(temporary)
            throw error
        }
    }

    /// A temporary socket left by an earlier run of a process with the same pid.
    private func removeLeftover(_ temporary: String) throws(ControlServerError) {
        do {
            guard let status = try FileIO.status(ofPath: temporary) else { return }
            guard status.kind == .socket else {
                throw ControlServerError.notASocket(path: temporary, kind: status.kind.rawValue)
            }
            try FileIO.unlink(temporary)
        } catch let error as ControlServerError {
            throw error
        } catch let error as SyscallError {
            throw .system("cannot remove the leftover \(temporary)", error)
        } catch {
            preconditionFailure("unexpected error \(error)")
        }
    }

    private func bind(_ temporary: String) throws(ControlServerError) -> OwnedFD {
        let fd: OwnedFD
        do { fd = try Socket.unixStream() } catch { throw .system("cannot create the control socket", error) }
        do {
            try Socket.bind(fd.rawValue, .path(temporary))
        } catch {
            switch error.errno {
            case .permissionDenied, .notPermitted, .readOnlyFileSystem:
                throw .directoryNotWritable(path: path, directory: directory, uid: UserDatabase.effectiveUserID)
            case .noSuchFileOrDirectory, .notDirectory:
                throw .directoryMissing(path: path, directory: directory)
            default:
                throw .system("cannot bind the control socket at \(path)", error)
            }
        }
        return fd
    }

    /// Group, mode and listen on the temporary name; returns its identity.
    private func prepare(_ temporary: String, gid: UInt32?, fd: CInt) throws(ControlServerError) -> FileStatus {
        if let gid, let group {
            do { try FileIO.changeOwner(temporary, group: gid) } catch {
                throw .cannotSetGroup(path: path, group: group.description, error)
            }
        }
        do { try FileIO.changeMode(temporary, to: mode) } catch {
            throw .system("cannot set mode \(String(mode, radix: 8)) on the control socket \(path)", error)
        }
        do { try Socket.listen(fd, backlog: backlog) } catch {
            throw .system("cannot listen on the control socket \(path)", error)
        }
        let status: FileStatus?
        do { status = try FileIO.status(ofPath: temporary) } catch {
            throw .system("cannot inspect the new control socket", error)
        }
        guard let status, status.kind == .socket else {
            throw .system("the new control socket vanished", SyscallError(.lstat, .noSuchFileOrDirectory))
        }
        return status
    }

    /// Gives the socket its final name: a new link if the name is free (never replacing anything
    /// that appeared meanwhile), or an atomic rename over a stale socket. Checked again here, as
    /// another process may have acted since the first check.
    private func publish(_ temporary: String) throws(ControlServerError) {
        for _ in 0..<3 {
            switch try ExistingSocketPath.check(path) {
            case .absent:
                do {
                    try FileIO.link(temporary, as: path)
                } catch  where error.errno == .fileExists {
                    continue
                } catch {
                    throw .system("cannot create the control socket at \(path)", error)
                }
                try? FileIO.unlink(temporary)
                return
            case .stale:
                do { try FileIO.rename(temporary, to: path) } catch {
                    throw .system("cannot replace the stale socket \(path)", error)
                }
                return
            }
        }
        throw .alreadyListening(path: path)
    }
}
