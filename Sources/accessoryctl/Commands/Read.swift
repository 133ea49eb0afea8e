import AccessoryClient
import ArgumentParser
import ControlProtocol

/// `accessoryctl read DEVICE`: frames that arrive.
///
/// Threading: runs on the main task.
struct Read: ConnectionCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print frames that arrive from an accessory.",
        discussion: "Frames are printed as by transact: text when UTF-8, else a hex dump."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The accessory's name.", completion: DeviceCompletion.kind)
    var device: String

    @Option(help: ArgumentHelp("How long to wait for the first frame.", valueName: "ms"))
    var timeout: Int64?

    @Option(help: ArgumentHelp("The most frames to return.", valueName: "n"))
    var maxFrames: Int64?

    func validate() throws {
        try Milliseconds.check(timeout, "--timeout")
        if let maxFrames, maxFrames < 1 || maxFrames > ParamLimits.maxFrames {
            throw ValidationError("--max-frames must be between 1 and \(ParamLimits.maxFrames)")
        }
    }

    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError) {
        let result = try await connection.call(
            .read(ReadParams(device: device, timeoutMs: timeout, maxFrames: maxFrames))
        )
        if json { return Output.line(result.description) }
        let frames = try ResultDecoding.decode(result, ReadResult.init(json:)).frames
        Output.lines(frames.flatMap(FrameText.lines))
    }
}
