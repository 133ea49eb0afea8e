import AccessoryClient
import ArgumentParser
import ControlProtocol

/// `accessoryctl transact DEVICE DATA`: one request/response exchange.
///
/// Threading: runs on the main task.
struct Transact: ConnectionCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send one frame to an accessory and print the response frames.",
        discussion: """
            The accessory's framing is added to DATA (a line terminator, SLIP, …) and removed \
            from the response. Each response frame is printed on its own line: as text when it \
            is UTF-8 (control characters as \\r, \\n, \\t, \\xNN), else as a hex dump. The \
            request waits its turn behind other clients' requests for DEVICE.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The accessory's name.", completion: DeviceCompletion.kind)
    var device: String

    @Argument(help: "The frame to send: text, or bytes with --hex or --base64.")
    var data: String

    @OptionGroup var payload: PayloadOptions

    @Option(
        help: ArgumentHelp("How long the exchange may take once it starts (default: the accessory's).", valueName: "ms")
    )
    var timeout: Int64?

    @Option(help: ArgumentHelp("How long to wait for its turn before failing (default: no limit).", valueName: "ms"))
    var wait: Int64?

    func validate() throws {
        _ = try payload.bytes(data)
        try Milliseconds.check(timeout, "--timeout")
        if let wait, wait < 0 || wait > ParamLimits.maxMilliseconds {
            throw ValidationError("--wait must be between 0 and \(ParamLimits.maxMilliseconds) milliseconds")
        }
    }

    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError) {
        let bytes = (try? payload.bytes(data)) ?? []
        let params = TransferParams(device: device, data: bytes, timeoutMs: timeout, waitMs: wait)
        let result = try await connection.call(.transact(params))
        if json { return Output.line(result.description) }
        let frames = try ResultDecoding.decode(result, TransactResult.init(json:)).frames
        Output.lines(frames.flatMap(FrameText.lines))
    }
}
