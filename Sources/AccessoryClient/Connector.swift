import SystemCalls

/// Connects to the daemon's socket and says why not in the client's terms.
///
/// Threading: stateless. Any thread.
enum Connector {
    /// How long to keep retrying a listener whose backlog is full (`EAGAIN`).
    static let busyRetries = 100
    static let busyRetryDelay = Duration.milliseconds(20)

    /// A connected, non-blocking, close-on-exec socket, returned as its raw number: the caller
    /// owns it (and must adopt it into an `OwnedFD`).
    static func connect(path: String) async throws(ClientError) -> CInt {
        var attempt = 0
        while true {
            do throws(SyscallError) {
                return try Socket.connectedUnixStream(to: .path(path)).release()
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
