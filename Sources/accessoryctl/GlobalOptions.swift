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
            "The daemon's socket (default: $ACCESSORYD_SOCKET, else \(AccessoryConnection.defaultSocketPath)).",
            valueName: "path"
        ),
        completion: .file()
    )
    var socket: String?

    @Flag(name: .long, help: "Print the daemon's JSON results as they are, one per line.")
    var json = false

    /// `--socket`, else `$ACCESSORYD_SOCKET` (when not empty), else the default path.
    var socketPath: String { Self.socketPath(explicit: socket) }

    /// `explicit`, else `$ACCESSORYD_SOCKET` (when not empty), else the default path.
    static func socketPath(explicit: String?) -> String {
        if let explicit { return explicit }
        if let fromEnvironment = ProcessEnvironment.value("ACCESSORYD_SOCKET"), !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        return AccessoryConnection.defaultSocketPath
    }
}
