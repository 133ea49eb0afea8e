import ControlProtocol

/// Why a call on an ``AccessoryConnection`` failed.
///
/// `description` is a sentence a person understands ("accessoryd is not running (no socket at
/// /run/accessoryd/accessoryd.sock)"); ``codeName`` is a stable snake_case name for scripts.
///
/// Threading: a value. Any thread.
public enum ClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing accepts connections at `path`: there is no socket file (`ENOENT`), or a socket
    /// file that nobody listens on (`ECONNREFUSED`, a stale file after a crash).
    case daemonNotRunning(path: String, socketFileExists: Bool)
    /// The socket's permissions do not let this user connect (`EACCES`, `EPERM`).
    case permissionDenied(path: String)
    /// Connecting failed for another reason (a path too long for a Unix socket, out of
    /// descriptors, a listener that stays too busy to accept, …).
    case connectionFailed(path: String, reason: String)
    /// The daemon answered the request with a JSON-RPC error.
    case rpc(RPCError)
    /// The connection is closed: the daemon closed it (it stopped, or dropped this client), or
    /// ``AccessoryConnection/close()`` was called. Calls in flight fail with this at once.
    case disconnected
    /// The daemon sent something this client does not understand. The connection is closed
    /// when the problem is in the message framing; a result of the wrong shape fails only its
    /// own call.
    case protocolError(String)

    public var description: String {
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
        case .rpc(let error):
            error.message
        case .disconnected:
            "the connection to accessoryd was closed"
        case .protocolError(let message):
            "accessoryd sent something this client does not understand: \(message)"
        }
    }

    /// A stable snake_case name: the protocol's code name for ``rpc(_:)`` (`timed_out`,
    /// `unknown_device`, …, or `error_<code>` for a code this client does not know), else
    /// `daemon_not_running`, `permission_denied`, `connection_failed`, `disconnected`,
    /// `protocol_error`.
    public var codeName: String {
        switch self {
        case .daemonNotRunning: "daemon_not_running"
        case .permissionDenied: "permission_denied"
        case .connectionFailed: "connection_failed"
        case .rpc(let error): error.errorCode?.name ?? "error_\(error.code)"
        case .disconnected: "disconnected"
        case .protocolError: "protocol_error"
        }
    }

    /// The protocol error code, for ``rpc(_:)``.
    public var errorCode: ErrorCode? {
        if case .rpc(let error) = self { return error.errorCode }
        return nil
    }
}
