import AccessoryClient
import ArgumentParser
import ControlProtocol

/// `accessoryctl write DEVICE DATA`: one frame, no response expected.
///
/// Threading: runs on the main task.
struct Write: ConnectionCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send one frame to an accessory without waiting for a response.",
        discussion: "Prints the number of bytes written, framing included."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The accessory's name.", completion: DeviceCompletion.kind)
    var device: String

    @Argument(help: "The frame to send: text, or bytes with --hex or --base64.")
    var data: String

    @OptionGroup var payload: PayloadOptions

    @Option(help: ArgumentHelp("How long the write may take once it starts.", valueName: "ms"))
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
        let result = try await connection.call(.write(params))
        if json { return Output.line(result.description) }
        let written = try ResultDecoding.decode(result, WriteResult.init(json:)).written
        Output.line("\(written) bytes written")
    }
}
