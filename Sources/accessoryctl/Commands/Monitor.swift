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
            (exit 0), --count events, or --duration; if accessoryd goes away it exits 1. With \
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

    /// Why monitoring stopped.
    ///
    /// Threading: a value. Any thread.
    private enum End: Sendable {
        case done
        case disconnected
    }

    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError) {
        let signals = try? SignalWatch.startForInterrupts()
        try await connection.subscribe(device: device, events: kinds.isEmpty ? nil : Set(kinds.map(\.kind)))
        let printer = EventPrinter(json: json, timestamps: timestamps)
        let (count, duration) = (self.count, self.duration)
        let end = await withTaskGroup(of: End.self) { group in
            group.addTask {
                var seen = 0
                for await event in connection.events {
                    printer.print(event)
                    seen += 1
                    if let count, seen >= count { return .done }
                }
                return Task.isCancelled ? .done : .disconnected
            }
            if let duration {
                group.addTask {
                    try? await Task.sleep(for: .milliseconds(duration))
                    return .done
                }
            }
            if let signals {
                group.addTask {
                    _ = await signals.next()
                    return .done
                }
            }
            let first = await group.next() ?? .done
            group.cancelAll()
            return first
        }
        if end == .disconnected { throw connection.endReason ?? .disconnected }
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
