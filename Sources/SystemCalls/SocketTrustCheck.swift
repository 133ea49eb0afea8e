extension ClientSocketTrust {
    /// Before connecting to `path` (as a client run by `uid`): for a per-user socket, its
    /// directory must pass ``DirectorySafety/privateTo(uid:)`` and the socket must be a socket
    /// owned by `uid`. A directory or socket that is not there passes: connecting then says the
    /// daemon is not running, which is the truth. Names are looked at with `lstat`, never
    /// followed. Nothing is checked for the other kinds (see ``ClientSocketTrust``).
    public func checkBeforeConnect(_ path: String, uid: UInt32) throws(SocketTrustError) {
        guard case .perUser(let directory) = self else { return }
        guard let folder = try? FileIO.status(ofPath: directory) else { return }
        if let problem = DirectorySafety.privateTo(uid: uid).problem(path: directory, status: folder) {
            throw .directory(problem, socket: path)
        }
        guard let socket = try? FileIO.status(ofPath: path) else { return }
        if socket.kind != .socket || socket.owner != uid {
            throw .socket(path: path, kind: socket.kind.rawValue, owner: socket.owner, uid: uid)
        }
    }

    /// After connecting: for a per-user socket, the listening process (`SO_PEERCRED`, which the
    /// kernel records at `listen`) must run as `uid` or as root. Checked even when the names
    /// passed ``checkBeforeConnect(_:uid:)``: it is what the connection reached, not what a name
    /// said a moment before.
    public func checkPeer(_ peer: Socket.PeerCredentials, path: String, uid: UInt32) throws(SocketTrustError) {
        guard case .perUser = self else { return }
        if peer.uid != uid && peer.uid != 0 {
            throw .peer(path: path, pid: peer.pid, peerUID: peer.uid, uid: uid)
        }
    }
}

/// Why a client refused to connect to (or use) a per-user socket (see ``ClientSocketTrust``).
/// Each description says what is wrong, as ``DirectorySafetyError`` does for the daemon, and what
/// to do.
///
/// Threading: a value. Any thread.
public enum SocketTrustError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The socket's directory fails ``DirectorySafety/privateTo(uid:)``.
    case directory(DirectorySafetyError, socket: String)
    /// The socket's name is not a socket, or not the caller's.
    case socket(path: String, kind: String, owner: UInt32, uid: UInt32)
    /// The process listening on the socket runs as another user.
    case peer(path: String, pid: Int32, peerUID: UInt32, uid: UInt32)

    /// The socket concerned.
    public var path: String {
        switch self {
        case .directory(_, let socket): socket
        case .socket(let path, _, _, _), .peer(let path, _, _, _): path
        }
    }

    public var description: String {
        let remedy =
            "; another user may have put it there to pose as accessoryd and read what this client sends, "
            + "so it is not used. Look at what is there, remove it, and start accessoryd again "
            + "(or name the socket with --socket or ACCESSORYD_SOCKET)"
        switch self {
        case .directory(let problem, let socket):
            return problem.finding(whose: "this user's") + " (the directory of \(socket))" + remedy
        case .socket(let path, let kind, let owner, let uid):
            return "unsafe socket \(path): it is \(kind) owned by uid \(owner), not a socket of this user's uid \(uid)"
                + remedy
        case .peer(let path, let pid, let peerUID, let uid):
            return "unsafe socket \(path): the process listening on it (pid \(pid)) runs as uid \(peerUID), "
                + "not as this user's uid \(uid) or root" + remedy
        }
    }
}
