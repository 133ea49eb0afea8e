import AccessoryClient
import ArgumentParser
import SystemCalls

/// The options every subcommand takes: where the daemon is, and how to print.
///
/// Threading: a value. Any thread.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The daemon's socket (default: $ACCESSORYD_SOCKET, else \(DaemonPaths.systemSocket) when it exists, "
                + "else $XDG_RUNTIME_DIR/accessoryd/\(DaemonPaths.socketName), else /tmp/accessoryd-UID/\(DaemonPaths.socketName)).",
            valueName: "path"
        ),
        completion: .file()
    )
    var socket: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The daemon on another host, reached with ssh, which runs `accessoryctl dial-stdio` there "
                + "(default: $\(DaemonEndpoint.hostVariable)). See docs/remote.md.",
            valueName: "ssh://[user@]host[:port]"
        )
    )
    var host: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --host: the command run on the remote host before dial-stdio "
                + "(default: $\(RemoteCommand.environmentVariable), else \(RemoteCommand.defaultCommand)).",
            valueName: "command"
        )
    )
    var remoteCommand: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --host: ssh's configuration file instead of ~/.ssh/config (ssh -F; "
                + "default: $\(SSHSettings.configVariable)).",
            valueName: "file"
        ),
        completion: .file()
    )
    var sshConfig: String?

    @Flag(name: .long, help: "Print the daemon's JSON results as they are, one per line.")
    var json = false

    @Flag(
        name: .long,
        help: "When accessoryd goes away (stops or restarts), end instead of connecting again (docs/usage.md)."
    )
    var noReconnect = false

    /// What the connection does when the daemon goes away: reconnect, unless `--no-reconnect`.
    var reconnect: ReconnectPolicy { noReconnect ? .never : .default }

    func validate() throws {
        if host != nil && socket != nil { throw ValidationError("give --host or --socket, not both") }
        do throws(SSHDestinationError) {
            if let host { _ = try SSHDestination(url: host) }
            if let remoteCommand { _ = try RemoteCommand(remoteCommand) }
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// `--socket`, else the lookup every client shares (``DaemonPaths/clientSocket(explicit:environment:uid:exists:)``).
    var socketPath: String { Self.socketPath(explicit: socket) }

    /// `--host`, else `--socket`, else `$ACCESSORYD_HOST`, else the local socket lookup. A bad
    /// host URL or remote command (from the environment: the options are checked by
    /// `validate`) is a usage error.
    func endpoint() throws(ExitCode) -> DaemonEndpoint {
        do throws(SSHDestinationError) {
            return try resolvedEndpoint()
        } catch {
            Output.error("error: \(error)")
            throw ExitCode(ExitStatus.usage)
        }
    }

    /// The local socket when the endpoint is one; nil for a remote daemon (or a bad host URL).
    var localSocketPath: String? {
        guard case .socket(let path)? = try? resolvedEndpoint() else { return nil }
        return path
    }

    private func resolvedEndpoint() throws(SSHDestinationError) -> DaemonEndpoint {
        try DaemonEndpoint.resolve(host: host, socket: socket, remoteCommand: remoteCommand, sshConfig: sshConfig)
    }

    /// `explicit`, else `$ACCESSORYD_SOCKET` (when not empty), else the system daemon's socket
    /// when it exists, else the per-user daemon's.
    static func socketPath(explicit: String?) -> String {
        DaemonPaths.currentClientSocket(explicit: explicit)
    }
}
