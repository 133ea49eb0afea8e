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

    @Flag(name: .long, help: "Print the daemon's JSON results as they are, one per line.")
    var json = false

    /// `--socket`, else the lookup every client shares (``DaemonPaths/clientSocket(explicit:environment:uid:exists:)``).
    var socketPath: String { Self.socketPath(explicit: socket) }

    /// `explicit`, else `$ACCESSORYD_SOCKET` (when not empty), else the system daemon's socket
    /// when it exists, else the per-user daemon's.
    static func socketPath(explicit: String?) -> String {
        DaemonPaths.currentClientSocket(explicit: explicit)
    }
}
