import AccessoryClient
import ArgumentParser
import ControlProtocol
import JSONCodec

/// On or off, as the command line spells a modem line's level.
///
/// Threading: a value. Any thread.
enum LineLevel: String, ExpressibleByArgument, CaseIterable {
    case on, off
    var asserted: Bool { self == .on }
}

/// The named reset sequences of `accessoryctl reset`.
///
/// Threading: a value. Any thread.
enum ResetSequence: String, ExpressibleByArgument, CaseIterable {
    /// esptool's classic reset into the ROM bootloader: hold EN low (RTS) with IO0 high (DTR
    /// off) for 100 ms, then release EN with IO0 low (DTR on) for 50 ms, then release IO0.
    case esp32
    /// avrdude's reset of an Arduino with an auto-reset capacitor on DTR: both lines off for
    /// 250 ms, then on; the falling edge through the capacitor resets the board, and the
    /// bootloader listens for about a second after.
    case arduino

    var steps: [LineStep] {
        switch self {
        case .esp32:
            [
                LineStep(dtr: false, rts: true, ms: 100), LineStep(dtr: true, rts: false, ms: 50),
                LineStep(dtr: false, ms: 0),
            ]
        case .arduino:
            [LineStep(dtr: false, rts: false, ms: 250), LineStep(dtr: true, rts: true, ms: 50)]
        }
    }
}

/// Prints a `control` answer: the modem lines afterwards, or that the driver gives none.
///
/// Threading: runs on the caller's task.
enum ControlOutput {
    static func print(_ result: JSONValue, json: Bool) throws(ClientError) {
        if json { return Output.line(result.description) }
        let object = try ResultDecoding.object(result)
        guard case .object(let lines)? = object["lines"] else {
            return Output.line("done (the driver does not report the modem lines)")
        }
        Output.lines(KeyValueText.lines(lines))
    }
}

/// `accessoryctl line DEVICE [--dtr on|off] [--rts on|off]`.
///
/// Threading: runs on the main task.
struct Line: ConnectionCommand {
    static let configuration = CommandConfiguration(
        abstract: "Set an accessory's DTR and/or RTS line.",
        discussion: """
            Queued behind the requests already waiting for the accessory, like a transact. Prints \
            the modem lines afterwards (DTR, RTS, CTS, DSR, DCD, RI). A pty or an RFCOMM link has \
            no modem lines: the answer says so (exit status 1).
            """
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "An accessory's name.", completion: DeviceCompletion.kind) var device: String
    @Option(help: "Set DTR (Data Terminal Ready) on or off.") var dtr: LineLevel?
    @Option(help: "Set RTS (Request To Send) on or off.") var rts: LineLevel?

    func validate() throws {
        if dtr == nil && rts == nil { throw ValidationError("give --dtr on|off, --rts on|off, or both") }
    }

    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError) {
        let params = ControlParams(device: device, dtr: dtr?.asserted, rts: rts?.asserted)
        try ControlOutput.print(try await connection.call(.control(params)), json: json)
    }
}

/// `accessoryctl reset DEVICE --sequence esp32|arduino`.
///
/// Threading: runs on the main task.
struct Reset: ConnectionCommand {
    static let configuration = CommandConfiguration(
        abstract: "Reset a board into its bootloader by toggling DTR and RTS.",
        discussion: """
            esp32: esptool's classic reset (RTS on and DTR off 100 ms, then DTR on and RTS off \
            50 ms, then DTR off), for boards with the usual two-transistor auto-reset circuit. \
            arduino: a DTR pulse (DTR and RTS off 250 ms, then on), for boards with an \
            auto-reset capacitor. The sequence runs as one request: no other client's request \
            runs in the middle of it.
            """
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "An accessory's name.", completion: DeviceCompletion.kind) var device: String
    @Option(help: "The reset sequence.") var sequence: ResetSequence

    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError) {
        let params = ControlParams(device: device, sequence: sequence.steps)
        try ControlOutput.print(try await connection.call(.control(params)), json: json)
    }
}

/// `accessoryctl break DEVICE [--ms N]`.
///
/// Threading: runs on the main task.
struct Break: ConnectionCommand {
    static let configuration = CommandConfiguration(
        commandName: "break",
        abstract: "Send a break (hold the line low) to an accessory.",
        discussion: "Queued behind the requests already waiting for the accessory, like a transact."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "An accessory's name.", completion: DeviceCompletion.kind) var device: String
    @Option(help: ArgumentHelp("How long the break lasts.", valueName: "ms")) var ms: Int64 = 250

    func validate() throws {
        guard (1...ControlLimits.maxBreakMs).contains(ms) else {
            throw ValidationError("--ms must be from 1 to \(ControlLimits.maxBreakMs)")
        }
    }

    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError) {
        let params = ControlParams(device: device, breakMs: ms)
        try ControlOutput.print(try await connection.call(.control(params)), json: json)
    }
}
