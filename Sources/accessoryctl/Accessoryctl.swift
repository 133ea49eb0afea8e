import AccessoryClient
import AccessoryVersion
import ArgumentParser
import SystemCalls

/// The command-line client of accessoryd.
///
/// Threading: the main task; one connection per invocation.
@main
struct Accessoryctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accessoryctl",
        abstract: "Talk to accessoryd, the daemon that owns serial and RFCOMM accessories.",
        discussion: """
            --socket PATH (default: $ACCESSORYD_SOCKET, else \(DaemonPaths.systemSocket) when it \
            exists, else the socket of a daemon run by this user: $XDG_RUNTIME_DIR/accessoryd/accessoryd.sock \
            or /tmp/accessoryd-UID/accessoryd.sock), --host ssh://[user@]host[:port] (default: \
            $ACCESSORYD_HOST; the daemon on another host, through ssh and `accessoryctl dial-stdio` \
            there; see docs/remote.md) and --json (print the daemon's results as they are) go \
            before or after any subcommand. Shell completions, accessory names \
            included: accessoryctl --generate-completion-script bash|zsh|fish.

            \(ExitStatus.help)
            """,
        version: AccessoryVersion.line("accessoryctl"),
        subcommands: [
            List.self, Status.self, Transact.self, Write.self, Read.self, Monitor.self, Trace.self, Lock.self,
            Attach.self, Line.self, Reset.self, Break.self, Clients.self, Kick.self, Views.self, Listeners.self,
            Metrics.self,
            DialStdio.self,
        ]
    )

    /// Given before the subcommand (`accessoryctl --socket PATH list`); the subcommands take the
    /// same options after their name too.
    @OptionGroup var global: GlobalOptions

    /// As ArgumentParser's own, except that usage errors exit with 2, as shells' tools do.
    static func main() async {
        do {
            var command = try await asyncParseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                Output.error(fullMessage(for: error))
                exit(withError: ExitCode(ExitStatus.usage))
            }
            exit(withError: error)
        }
    }
}
