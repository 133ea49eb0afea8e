import AccessoryClient
import ArgumentParser
import SystemCalls

/// `accessoryctl dial-stdio`: the far end of `--host ssh://…`.
///
/// Threading: runs on the main task, which relays the daemon's bytes to standard output while a
/// second thread relays standard input to the daemon (``StdioRelay``).
struct DialStdio: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dial-stdio",
        abstract: "Relay standard input and output to the daemon's socket, bytes unchanged.",
        discussion: """
            What `accessoryctl --host ssh://host …` runs on the remote host through ssh (as \
            `docker system dial-stdio` does): connects to this host's daemon (--socket, else the \
            usual lookup; $ACCESSORYD_HOST is not followed) and copies standard input to it and \
            its answers to standard output until it closes the connection. At the end of the \
            input the socket's sending side is shut down and the answers still due are relayed. \
            The daemon sees the user running this command as the peer: its access rules apply \
            to the SSH user unchanged. Exit status 0 when the daemon closes the connection, 3 \
            when it is not running, 4 when the socket refuses this user.
            """
    )

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if global.host != nil {
            throw ValidationError("dial-stdio connects to this host's daemon: --host does not apply")
        }
    }

    mutating func run() async throws {
        let socket: OwnedFD
        do throws(ClientError) {
            socket = try await AccessoryConnection.connectSocket(socketPath: global.socketPath)
        } catch {
            throw ExitStatus.fail(error)
        }
        if let failure = StdioRelay.run(socket: socket) {
            Output.error("error: dial-stdio: \(failure)")
            throw ExitCode(ExitStatus.requestFailed)
        }
    }
}
