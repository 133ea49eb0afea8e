import AccessoryClient
import ArgumentParser
import ControlProtocol

/// `accessoryctl write DEVICE DATA`: one frame, no response expected.
///
/// Threading: runs on the main task.
struct Write: ConnectionCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send one frame to an accessory without waiting for a response.",
        discussion: "Prints the number of payload bytes written (the framing added is not counted)."
    )

    @OptionGroup var global: GlobalOptions

    @OptionGroup var transfer: TransferArguments

    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError) {
        let result = try await connection.call(.write(transfer.params))
        if json { return Output.line(result.description) }
        let written = try ResultDecoding.decode(result, WriteResult.init(json:)).written
        Output.line("\(written) bytes written")
    }
}
