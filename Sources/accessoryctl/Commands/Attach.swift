import AccessoryClient
import ArgumentParser
import AttachTerminal
import ControlProtocol
import SystemCalls

/// `accessoryctl attach DEVICE`: standard input and output connected to an accessory's raw bytes.
///
/// Threading: runs on the main task; the byte pump runs on this thread's own loop.
struct Attach: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Connect standard input and output to an accessory's raw bytes.",
        discussion: """
            Asks accessoryd to attach: once the accessory's earlier requests are done, this \
            connection holds it (other clients' requests wait) and carries bytes both ways as they \
            are, with no framing: what you type or pipe in goes to the device, what the device \
            sends is printed. Ends at the end of the input (after --linger ms without output from \
            the device), on Ctrl-C (exit 0), or when accessoryd closes the connection because the \
            device went away (exit 1).

            When standard input is a terminal, attach is a serial terminal like tio or picocom: \
            the terminal is put in raw mode (every key, Ctrl-C included, goes to the device as \
            typed) and restored however the session ends. The escape key (Ctrl-T) followed by ? \
            lists the commands: q quits, b sends a break, d and r toggle DTR and RTS, h the \
            hexadecimal view, t timestamps, l logging, s the statistics. The options below the \
            first two apply then only; piped input is carried untouched.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The accessory.", completion: DeviceCompletion.kind)
    var device: String

    @Option(name: .customLong("wait"), help: ArgumentHelp("Wait this long for the accessory.", valueName: "ms"))
    var waitMs: Int64?

    @Option(help: ArgumentHelp("After the input ends, wait this long for more output.", valueName: "ms"))
    var linger: Int64 = 300

    @Option(help: ArgumentHelp("The escape key (terminal only).", valueName: "ctrl-X"))
    var escape = "ctrl-t"

    @Option(
        help: ArgumentHelp(
            "Character mappings, comma-separated: "
                + CharacterMap.Rule.allCases.map { "\($0.rawValue) (\($0.summary))" }.joined(separator: ", ")
                + " (terminal only).",
            valueName: "rules"
        )
    )
    var map: String?

    @Flag(help: "Show what is typed, as sent (terminal only).")
    var localEcho = false

    @Flag(help: "Start each line of output with the time, to the millisecond (terminal only).")
    var timestamps = false

    @Flag(help: "Show output as hexadecimal bytes (terminal only).")
    var hex = false

    @Option(
        help: ArgumentHelp(
            "Append the session, both ways, timestamped, to this file (created 0600; terminal only).",
            valueName: "file"
        ),
        completion: .file()
    )
    var log: String?

    func validate() throws {
        for (value, option) in [(waitMs, "--wait"), (linger, "--linger")] {
            guard let value else { continue }
            guard value >= 0 && value <= ParamLimits.maxMilliseconds else {
                throw ValidationError("\(option) must be between 0 and \(ParamLimits.maxMilliseconds) milliseconds")
            }
        }
        _ = try terminalSettings()
    }

    /// The interactive options, checked.
    func terminalSettings() throws(ValidationError) -> TerminalSettings {
        var settings = TerminalSettings()
        do throws(EscapeKeyError) {
            settings.escape = try EscapeKey(parsing: escape)
        } catch {
            throw ValidationError(error.description)
        }
        if let map {
            do throws(CharacterMapError) {
                settings.map = try CharacterMap(parsing: map)
            } catch {
                throw ValidationError(error.description)
            }
        }
        settings.localEcho = localEcho
        settings.timestamps = timestamps
        settings.hex = hex
        settings.logPath = log
        settings.socketPath = global.localSocketPath
        settings.device = device
        return settings
    }

    mutating func run() async throws {
        let endpoint = try global.endpoint()
        let channel: RawChannel
        do throws(ClientError) {
            channel = try await AccessoryConnection.connectRaw(to: endpoint)
        } catch {
            throw ExitStatus.fail(error)
        }
        let tunnel = channel.tunnel
        let socket = channel.socket
        defer { tunnel?.release() }
        let request = Request(id: .int(1), method: .attach(AttachParams(device: device, waitMs: waitMs)))
        guard Termios.isTerminal(0) else {
            // Piped or redirected input: the byte stream, untouched (scripts and transfers).
            let outcome = RawPump.run(socket: socket, request: request.line, linger: .milliseconds(linger))
            try Self.conclude(await Self.explained(outcome, by: tunnel))
            return
        }
        let settings = try terminalSettings()
        let session: TerminalSession
        do throws(SessionStartError) {
            session = try TerminalSession(settings: settings)
        } catch {
            Output.error("error: \(error)")
            throw ExitCode(ExitStatus.usage)
        }
        let outcome = RawPump.run(
            socket: socket,
            request: request.line,
            linger: .milliseconds(linger),
            terminal: session
        )
        // Before any message: the terminal is itself again whatever happened.
        session.restoreTerminal()
        try Self.conclude(await Self.explained(outcome, by: tunnel))
    }

    /// A lost connection to a remote daemon, told in ssh's words once ssh has exited (it is
    /// released first, so that it exits within its grace period).
    private static func explained(_ outcome: RawPump.Outcome, by tunnel: SSHTunnel?) async -> RawPump.Outcome {
        guard let tunnel, case .failed(.disconnected) = outcome else { return outcome }
        tunnel.release()
        return .failed(await tunnel.ended())
    }

    private static func conclude(_ outcome: RawPump.Outcome) throws(ExitCode) {
        switch outcome {
        case .finished:
            return
        case .failed(let error):
            throw ExitStatus.fail(error)
        }
    }
}
