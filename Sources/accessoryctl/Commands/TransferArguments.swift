import AccessoryClient
import ArgumentParser
import ControlProtocol

/// What `transact` and `write` share: the accessory, the frame to send and its time limits.
///
/// Threading: a value, parsed on the main task.
struct TransferArguments: ParsableArguments {
    @Argument(help: "The accessory's name.", completion: DeviceCompletion.kind)
    var device: String

    @Argument(help: "The frame to send: text, or bytes with --hex or --base64.")
    var data: String

    @OptionGroup var payload: PayloadOptions

    @Option(
        help: ArgumentHelp("How long the request may take once it is sent (default: the accessory's).", valueName: "ms")
    )
    var timeout: Int64?

    @Option(
        help: ArgumentHelp(
            "How long to wait if the accessory is absent or locked by another client (default: fail at once).",
            valueName: "ms"
        )
    )
    var wait: Int64?

    func validate() throws {
        _ = try payload.bytes(data)
        try Milliseconds.check(timeout, "--timeout")
        if let wait, wait < 0 || wait > ParamLimits.maxMilliseconds {
            throw ValidationError("--wait must be between 0 and \(ParamLimits.maxMilliseconds) milliseconds")
        }
    }

    /// The request's params (validated already).
    var params: TransferParams {
        TransferParams(device: device, data: (try? payload.bytes(data)) ?? [], timeoutMs: timeout, waitMs: wait)
    }
}
