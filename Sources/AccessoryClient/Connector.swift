import SystemCalls

/// Connects to the daemon's socket and says why not in the client's terms.
///
/// Threading: stateless. Any thread.
enum Connector {
    /// How long to keep retrying a listener whose backlog is full (`EAGAIN`).
    static let busyRetries = 100
    static let busyRetryDelay = Duration.milliseconds(20)

    /// A connected, non-blocking, close-on-exec socket, returned as its raw number: the caller
    /// owns it (and must adopt it into an `OwnedFD`). A socket in this user's per-user runtime
    /// directory is checked before connecting and the process behind it after
    /// (``ClientSocketTrust``): ``ClientError/unsafeSocket(path:reason:)`` when it fails.
    static func connect(path: String) async throws(ClientError) -> CInt {
        let trust = ClientSocketTrust.current(path: path)
        let uid = UserDatabase.effectiveUserID
        do throws(SocketTrustError) {
            try trust.checkBeforeConnect(path, uid: uid)
        } catch {
            throw .unsafeSocket(path: path, reason: error.description)
        }
        let fd = try await connectRetrying(path: path)
        try checkPeer(fd.rawValue, trust: trust, path: path, uid: uid)
        return fd.release()
    }

    /// The process behind `fd` must pass `trust` (checked after the connect: what the
    /// connection reached, not what a name said).
    static func checkPeer(_ fd: CInt, trust: ClientSocketTrust, path: String, uid: UInt32) throws(ClientError) {
        guard case .perUser = trust else { return }
        let peer: Socket.PeerCredentials
        do { peer = try Socket.peerCredentials(fd) } catch { throw clientError(error, path: path) }
        do throws(SocketTrustError) {
            try trust.checkPeer(peer, path: path, uid: uid)
        } catch {
            throw .unsafeSocket(path: path, reason: error.description)
        }
    }

    /// A connected socket to `path`, retrying while the listener's backlog is full.
    private static func connectRetrying(path: String) async throws(ClientError) -> OwnedFD {
        var attempt = 0
        while true {
            do throws(SyscallError) {
                return try Socket.connectedUnixStream(to: .path(path))
            } catch  where error.errno == .resourceTemporarilyUnavailable && attempt < busyRetries {
                attempt += 1
                try? await Task.sleep(for: busyRetryDelay)
            } catch {
                throw clientError(error, path: path)
            }
        }
    }

    /// A connected socket to `endpoint` (as ``connect(path:)``), with the `ssh` child behind it
    /// for a remote one.
    static func connect(_ endpoint: DaemonEndpoint) async throws(ClientError) -> (CInt, SSHTunnel?) {
        switch endpoint {
        case .socket(let path):
            return (try await connect(path: path), nil)
        case .ssh(let destination, let settings):
            let (tunnel, socket) = try SSHTunnel.open(destination, settings: settings)
            return (socket, tunnel)
        }
    }

    static func clientError(_ error: SyscallError, path: String) -> ClientError {
        switch error.errno {
        case .noSuchFileOrDirectory, .notDirectory:
            return .daemonNotRunning(path: path, socketFileExists: false)
        case .connectionRefused:
            return .daemonNotRunning(path: path, socketFileExists: true)
        case .permissionDenied, .notPermitted:
            return .permissionDenied(path: path)
        case .fileNameTooLong:
            return .connectionFailed(path: path, reason: "the path is too long for a Unix socket (108 bytes at most)")
        case .resourceTemporarilyUnavailable:
            return .connectionFailed(path: path, reason: "accessoryd is too busy to accept connections; try again")
        default:
            return .connectionFailed(path: path, reason: error.errno.description)
        }
    }
}
