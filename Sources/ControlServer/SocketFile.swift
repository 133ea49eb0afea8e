import SystemCalls

/// The socket file this process created, identified by device and inode, so that it is removed
/// only while the name still refers to it (never a file another daemon put there since).
///
/// Threading: a value. Any thread.
struct SocketFile: Sendable, Equatable {
    let path: String
    let device: UInt64
    let inode: UInt64

    /// Whether `path` still names this socket.
    var isStillOurs: Bool {
        guard let status = try? FileIO.status(ofPath: path) else { return false }
        return status.kind == .socket && status.device == device && status.inode == inode
    }

    /// Removes the file if it is still ours. Returns whether it did. Any thread.
    @discardableResult
    func removeIfOurs() -> Bool {
        guard isStillOurs else { return false }
        do { try FileIO.unlink(path) } catch { return false }
        return true
    }
}

/// What is at a socket path before the daemon creates its socket there.
///
/// Threading: stateless. Any thread.
enum ExistingSocketPath {
    /// Nothing, or a socket nobody listens on (left by a daemon that died).
    enum State: Equatable {
        case absent
        case stale
    }

    /// Looks at `path`: absent, or a stale socket (safe to replace). A live socket, and anything
    /// that is not a stream socket, is an error; nothing is removed here.
    static func check(_ path: String) throws(ControlServerError) -> State {
        let status: FileStatus?
        do { status = try FileIO.status(ofPath: path) } catch {
            throw .system("cannot inspect the existing \(path)", error)
        }
        guard let status else { return .absent }
        guard status.kind == .socket else { throw .notASocket(path: path, kind: status.kind.rawValue) }
        return try probe(path)
    }

    /// Connects to the socket at `path`: refused means stale; accepted (or a full backlog) means a
    /// live listener.
    private static func probe(_ path: String) throws(ControlServerError) -> State {
        let fd: OwnedFD
        do { fd = try Socket.unixStream() } catch {
            throw .system("cannot create a socket to probe \(path)", error)
        }
        do {
            _ = try Socket.connect(fd.rawValue, .path(path))
        } catch {
            switch error.errno {
            case .connectionRefused: return .stale
            case .noSuchFileOrDirectory: return .absent
            case .resourceTemporarilyUnavailable: throw .alreadyListening(path: path)
            case .protocolWrongTypeForSocket: throw .notASocket(path: path, kind: "a socket of another type")
            default: throw .system("cannot tell whether another daemon listens on \(path)", error)
            }
        }
        throw .alreadyListening(path: path)
    }
}
