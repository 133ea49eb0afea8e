import SystemCalls

/// Where a client finds accessoryd: a Unix socket on this machine, or a daemon on another host
/// reached through `ssh`, which runs `accessoryctl dial-stdio` there (the remote daemon keeps no
/// network listener; the SSH user's own identity is the peer credential it judges).
///
/// Threading: a value. Any thread.
package enum DaemonEndpoint: Sendable, Hashable, CustomStringConvertible {
    case socket(String)
    case ssh(SSHDestination, SSHSettings)

    /// The variable that names a remote host when the caller gives neither host nor socket.
    package static let hostVariable = "ACCESSORYD_HOST"

    /// The endpoint every client chooses by the same rule: an explicit `host` URL; else an
    /// explicit `socket`; else `$ACCESSORYD_HOST` when not empty; else the local socket lookup
    /// (``AccessoryConnection/defaultSocketPath``). `remoteCommand` and `sshConfig` apply to a
    /// host (each else from its variable: `$ACCESSORYD_REMOTE_COMMAND`, `$ACCESSORYD_SSH_CONFIG`).
    package static func resolve(
        host: String? = nil,
        socket: String? = nil,
        remoteCommand: String? = nil,
        sshConfig: String? = nil
    ) throws(SSHDestinationError) -> DaemonEndpoint {
        if let host { return try remote(host, remoteCommand: remoteCommand, sshConfig: sshConfig) }
        if let socket { return .socket(socket) }
        if let fromEnvironment = ProcessEnvironment.value(hostVariable), !fromEnvironment.isEmpty {
            return try remote(fromEnvironment, remoteCommand: remoteCommand, sshConfig: sshConfig)
        }
        return .socket(DaemonPaths.currentClientSocket())
    }

    private static func remote(
        _ url: String,
        remoteCommand: String?,
        sshConfig: String?
    ) throws(SSHDestinationError) -> DaemonEndpoint {
        let destination = try SSHDestination(url: url)
        let command = try RemoteCommand.resolve(explicit: remoteCommand)
        let config = sshConfig ?? ProcessEnvironment.value(SSHSettings.configVariable).flatMap { $0.isEmpty ? nil : $0 }
        return .ssh(destination, SSHSettings(remoteCommand: command, configFile: config))
    }

    /// The socket path, or the host URL: what messages name.
    package var description: String {
        switch self {
        case .socket(let path): path
        case .ssh(let destination, _): destination.description
        }
    }
}

/// How `ssh` is run for a remote endpoint.
///
/// Threading: a value. Any thread.
package struct SSHSettings: Sendable, Hashable {
    /// The variable naming an ssh configuration file used instead of `~/.ssh/config` (`ssh -F`).
    package static let configVariable = "ACCESSORYD_SSH_CONFIG"

    /// What runs on the remote host before `dial-stdio`.
    package var remoteCommand: RemoteCommand
    /// `ssh -F FILE`; nil: ssh's own (`~/.ssh/config`, then `/etc/ssh/ssh_config`).
    package var configFile: String?
    /// The ssh program: a name looked up on `PATH`, or a path.
    package var program: String

    package init(remoteCommand: RemoteCommand, configFile: String? = nil, program: String = "ssh") {
        self.remoteCommand = remoteCommand
        self.configFile = configFile
        self.program = program
    }
}
