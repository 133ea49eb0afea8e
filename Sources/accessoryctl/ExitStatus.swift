import AccessoryClient
import ArgumentParser
import ControlProtocol

/// accessoryctl's exit statuses, and the messages that go with them.
///
/// Threading: stateless. Any thread.
enum ExitStatus {
    static let requestFailed: Int32 = 1
    static let usage: Int32 = 2
    static let daemonNotRunning: Int32 = 3
    static let permissionDenied: Int32 = 4
    static let deviceUnavailable: Int32 = 5
    static let timedOut: Int32 = 6

    /// The help text's section on them.
    static let help = """
        EXIT STATUS:
          0  success
          1  a request failed (the message names the protocol's error code)
          2  usage error (bad option, argument, DATA, or script line)
          3  accessoryd is not running (no socket, or nothing listening on it)
          4  permission denied (by the socket, or by the accessory's access list), or the socket
             is not safe to use (in this user's runtime directory, but another user's)
          5  the accessory is unknown, absent, unavailable, or was removed
          6  timed out
        """

    /// The status for a failed call.
    static func code(for error: ClientError) -> Int32 {
        switch error {
        case .daemonNotRunning: return daemonNotRunning
        case .permissionDenied, .unsafeSocket: return permissionDenied
        case .rpc(let rpc):
            switch rpc.errorCode {
            case .permissionDenied?: return permissionDenied
            case .unknownDevice?, .deviceUnavailable?, .deviceRemoved?: return deviceUnavailable
            case .timedOut?: return timedOut
            default: return requestFailed
            }
        case .connectionFailed, .disconnected, .daemonRestarted, .lockLost, .protocolError: return requestFailed
        case .remoteEnded(_, _, ClientError.remoteDaemonNotRunning?): return daemonNotRunning
        case .remoteEnded(_, _, ClientError.remotePermissionDenied?): return permissionDenied
        case .remoteEnded: return requestFailed  // as for a daemon that went away
        }
    }

    /// `error: <message> (<code name>)`, the code name left out where the message says it all.
    static func message(for error: ClientError, context: String? = nil) -> String {
        let prefix = "error: " + (context.map { "\($0): " } ?? "")
        switch error {
        case .daemonNotRunning, .permissionDenied, .connectionFailed, .unsafeSocket:
            return prefix + error.description
        case .remoteEnded:
            return prefix + "\(error.description) (\(error.codeName))"
        case .disconnected:
            return prefix + "accessoryd closed the connection (disconnected)"
        case .rpc, .protocolError, .daemonRestarted, .lockLost:
            return prefix + "\(error.description) (\(error.codeName))"
        }
    }

    /// Prints the message for `error` and returns the exit status to throw.
    static func fail(_ error: ClientError, context: String? = nil) -> ExitCode {
        Output.error(message(for: error, context: context))
        return ExitCode(code(for: error))
    }
}
