import AccessoryClient
import ArgumentParser
import ControlProtocol

/// `accessoryctl trace DEVICE`: every byte to and from one accessory, live.
///
/// Threading: runs on the main task; records, the time limit and signals are awaited by child
/// tasks.
struct Trace: ConnectionCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print every byte sent to and received from an accessory, as it happens.",
        discussion: """
            Subscribes to DEVICE's traffic (device.traffic) and prints each read from the device \
            (rx) and each write to it (tx, with the client and request that sent it), one line \
            each with non-printable bytes escaped (\\r, \\n, \\xNN), until Ctrl-C or SIGTERM \
            (exit 0), --count records, or --duration; if accessoryd goes away it exits 1. With \
            --hex each record is a hex dump; with --timestamps it starts with the local time \
            (milliseconds); with --json it is the daemon's notification line. Needs permission \
            to use DEVICE, as requests do.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The accessory.", completion: DeviceCompletion.kind)
    var device: String

    @Flag(help: "Print each record as a hex dump.")
    var hex = false

    @Flag(help: "Start each record with its local wall-clock time, to the millisecond.")
    var timestamps = false

    @Option(help: ArgumentHelp("Stop after this many records.", valueName: "n"))
    var count: Int?

    @Option(help: ArgumentHelp("Stop after this long.", valueName: "ms"))
    var duration: Int64?

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        try Milliseconds.check(duration, "--duration")
    }

    /// Why tracing stopped.
    ///
    /// Threading: a value. Any thread.
    private enum End: Sendable {
        case done
        case disconnected
    }

    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError) {
        let signals = try? SignalWatch.startForInterrupts()
        try await connection.subscribe(device: device, events: [.traffic])
        let printer = TrafficPrinter(hex: hex, timestamps: timestamps)
        let (count, duration) = (self.count, self.duration)
        let end = await withTaskGroup(of: End.self) { group in
            group.addTask {
                var seen = 0
                for await event in connection.events {
                    guard case .traffic(let record) = event else { continue }
                    if json {
                        Output.line(TrafficPrinter.jsonLine(record))
                    } else {
                        Output.lines(printer.lines(record))
                    }
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
