import ControlProtocol

/// Why a call on an ``AccessoryConnection`` failed.
///
/// `description` is a sentence a person understands ("accessoryd is not running (no socket at
/// /run/accessoryd/accessoryd.sock)"); ``codeName`` is a stable snake_case name for scripts.
///
/// Threading: a value. Any thread.
package enum ClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing accepts connections at `path`: there is no socket file (`ENOENT`), or a socket
    /// file that nobody listens on (`ECONNREFUSED`, a stale file after a crash).
    case daemonNotRunning(path: String, socketFileExists: Bool)
    /// The socket's permissions do not let this user connect (`EACCES`, `EPERM`).
    case permissionDenied(path: String)
    /// Connecting failed for another reason (a path too long for a Unix socket, out of
    /// descriptors, a listener that stays too busy to accept, …).
    case connectionFailed(path: String, reason: String)
    /// The socket is in this user's per-user runtime directory, and that directory, the socket or
    /// the process listening on it is not this user's: another user may have put it there
    /// (`SystemCalls.ClientSocketTrust`). `reason` says which and what to do. Nothing was sent.
    case unsafeSocket(path: String, reason: String)
    /// The daemon answered the request with a JSON-RPC error.
    case rpc(RPCError)
    /// The connection is closed: the daemon closed it (it stopped, or dropped this client), or
    /// ``AccessoryConnection/close()`` was called. Calls in flight fail with this at once.
    case disconnected
    /// The daemon sent something this client does not understand. The connection is closed
    /// when the problem is in the message framing; a result of the wrong shape fails only its
    /// own call.
    case protocolError(String)
    /// The connection to a remote daemon through `ssh` ended, or never opened: `message` is the
    /// last of what ssh (or `accessoryctl dial-stdio` on the remote host) wrote on its standard
    /// error, `exitStatus` ssh's exit status (nil when it was killed by a signal). ssh passes on
    /// the remote command's status: ``remoteDaemonNotRunning`` and ``remotePermissionDenied``
    /// are `dial-stdio`'s own for those cases; 255 is ssh's for its own failures.
    case remoteEnded(host: String, message: String, exitStatus: Int32?)

    /// `accessoryctl dial-stdio`'s exit status when the remote daemon is not running.
    package static let remoteDaemonNotRunning: Int32 = 3
    /// `accessoryctl dial-stdio`'s exit status when the remote socket refuses the SSH user.
    package static let remotePermissionDenied: Int32 = 4

    package var description: String {
        switch self {
        case .daemonNotRunning(let path, socketFileExists: false):
            "accessoryd is not running (no socket at \(path))"
        case .daemonNotRunning(let path, socketFileExists: true):
            "accessoryd is not running (nothing is listening on \(path); the socket file is stale)"
        case .permissionDenied(let path):
            "permission denied connecting to accessoryd at \(path) "
                + "(the socket's owner, group or mode does not allow this user)"
        case .connectionFailed(let path, let reason):
            "cannot connect to accessoryd at \(path): \(reason)"
        case .unsafeSocket(_, let reason):
            reason
        case .rpc(let error):
            error.message
        case .disconnected:
            "the connection to accessoryd was closed"
        case .protocolError(let message):
            "accessoryd sent something this client does not understand: \(message)"
        case .remoteEnded(let host, let message, let status):
            Self.remoteDescription(host: host, message: message, status: status)
        }
    }

    /// A stable snake_case name: the protocol's code name for ``rpc(_:)`` (`timed_out`,
    /// `unknown_device`, …, or `error_<code>` for a code this client does not know), else
    /// `daemon_not_running`, `permission_denied`, `connection_failed`, `unsafe_socket`,
    /// `disconnected`, `protocol_error`.
    package var codeName: String {
        switch self {
        case .daemonNotRunning: "daemon_not_running"
        case .permissionDenied: "permission_denied"
        case .connectionFailed: "connection_failed"
        case .unsafeSocket: "unsafe_socket"
        case .rpc(let error): error.errorCode?.name ?? "error_\(error.code)"
        case .disconnected: "disconnected"
        case .protocolError: "protocol_error"
        case .remoteEnded(_, _, Self.remoteDaemonNotRunning?): "daemon_not_running"
        case .remoteEnded(_, _, Self.remotePermissionDenied?): "permission_denied"
        case .remoteEnded: "disconnected"
        }
    }

    /// The protocol error code, for ``rpc(_:)``.
    package var errorCode: ErrorCode? {
        if case .rpc(let error) = self { return error.errorCode }
        return nil
    }

    private static func remoteDescription(host: String, message: String, status: Int32?) -> String {
        switch status {
        case remoteDaemonNotRunning?, remotePermissionDenied?:
            // dial-stdio's own message, which says it all ("error: accessoryd is not running …").
            let text = message.hasPrefix("error: ") ? String(message.dropFirst("error: ".count)) : message
            return "\(host): \(text.isEmpty ? "accessoryd is not reachable" : text)"
        case 0? where message.isEmpty:
            // dial-stdio ends with 0 when the daemon closes the connection.
            return "the connection to accessoryd on \(host) was lost: the remote accessoryd closed it"
        default:
            let why =
                !message.isEmpty
                ? message : status.map { "ssh exited with status \($0)" } ?? "ssh was killed by a signal"
            return "the connection to accessoryd on \(host) was lost: \(why)"
        }
    }
}
