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

    @OptionGroup var transfer: TransferArguments

    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError) {
        let result = try await connection.call(.transact(transfer.params))
        if json { return Output.line(result.description) }
        let frames = try ResultDecoding.decode(result, TransactResult.init(json:)).frames
        Output.lines(frames.flatMap(FrameText.lines))
    }
}
