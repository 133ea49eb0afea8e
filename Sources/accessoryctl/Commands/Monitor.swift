import AccessoryClient
import ArgumentParser
import ControlProtocol

/// `accessoryctl monitor [DEVICE]`: live notifications.
///
/// Threading: runs on the main task; events, the time limit and signals are awaited by child
/// tasks.
struct Monitor: ConnectionCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print unsolicited data and state changes as they happen.",
        discussion: """
            Subscribes to DEVICE (or every accessory) and prints each device.data frame that no \
            request claimed and each device.state change, one line each, until Ctrl-C or SIGTERM \
            (exit 0), --count events, or --duration. If accessoryd goes away (stops or restarts), \
            it says so on standard error and carries on once it is back (giving up after 30 s: \
            exit 3); with --no-reconnect it exits 1. With \
            --json each event is printed as the daemon's notification line.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "One accessory (default: all).", completion: DeviceCompletion.kind)
    var device: String?

    @Option(
        name: .customLong("event"),
        help: "Only this kind of event: data, state or traffic (repeatable; default data and state)."
    )
    var kinds: [EventKindArgument] = []

    @Option(help: ArgumentHelp("Stop after this many events.", valueName: "n"))
    var count: Int?

    @Option(help: ArgumentHelp("Stop after this long.", valueName: "ms"))
    var duration: Int64?

    @Flag(help: "Start each line with the seconds since monitoring began.")
    var timestamps = false

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        try Milliseconds.check(duration, "--duration")
    }

    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError) {
        let signals = try? SignalWatch.startForInterrupts()
        try await connection.subscribe(device: device, events: kinds.isEmpty ? nil : Set(kinds.map(\.kind)))
        let printer = EventPrinter(json: json, timestamps: timestamps)
        try await EventFollowing.follow(connection, signals: signals, count: count, durationMs: duration) { event in
            printer.print(event)
            return true
        }
    }
}

/// `--event data|state`.
///
/// Threading: a value. Any thread.
enum EventKindArgument: String, ExpressibleByArgument, CaseIterable {
    case data
    case state
    case traffic

    var kind: EventKind {
        switch self {
        case .data: .data
        case .state: .state
        case .traffic: .traffic
        }
    }
}
