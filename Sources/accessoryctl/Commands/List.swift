import AccessoryClient
import ArgumentParser
import ControlProtocol

/// `accessoryctl list`: the configured accessories as a table.
///
/// Threading: runs on the main task.
struct List: ConnectionCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the configured accessories: name, state, transport, path, queue depth."
    )

    @OptionGroup var global: GlobalOptions

    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError) {
        let result = try await connection.call(.devicesList)
        if json { return Output.line(result.description) }
        let devices = try ResultDecoding.decode(result, DevicesListResult.init(json:)).devices
        var table = Table(
            ["NAME", "STATE", "TRANSPORT", "PATH", "QUEUE"],
            alignments: [.left, .left, .left, .left, .right]
        )
        for device in devices {
            table.rows.append([
                device.name, device.state.rawValue, device.transport, device.path ?? "-", String(device.queueDepth),
            ])
        }
        Output.lines(table.lines())
    }
}
