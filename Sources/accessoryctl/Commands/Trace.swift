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
            (rx, with the client and request that awaited it, if one did) and each write to it \
            (tx, with the client and request that sent it), one line \
            each with non-printable bytes escaped (\\r, \\n, \\xNN), until Ctrl-C or SIGTERM \
            (exit 0), --count records, or --duration. If accessoryd goes away (stops or restarts), \
            it says so on standard error and carries on once it is back (giving up after 30 s: \
            exit 3); with --no-reconnect it exits 1. With \
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

    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError) {
        let signals = try? SignalWatch.startForInterrupts()
        try await connection.subscribe(device: device, events: [.traffic])
        let printer = TrafficPrinter(hex: hex, timestamps: timestamps)
        try await EventFollowing.follow(connection, signals: signals, count: count, durationMs: duration) { event in
            guard case .traffic(let record) = event else { return false }
            if json {
                Output.line(TrafficPrinter.jsonLine(record))
            } else {
                Output.lines(printer.lines(record))
            }
            return true
        }
    }
}
