import AccessoryClient
import ArgumentParser
import ControlProtocol
import JSONCodec

/// `accessoryctl status [DEVICE]`: the daemon's or one accessory's status as `key: value` lines.
///
/// Threading: runs on the main task.
struct Status: ConnectionCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the daemon's status, or one accessory's.",
        discussion: """
            Without DEVICE: version, uptime, clients and counters of the daemon (daemon.status). \
            With DEVICE: its state, identity, settings, counters and last error (device.status). \
            Nested values are shown with dotted keys (counters.bytes_in).
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "An accessory's name.", completion: DeviceCompletion.kind)
    var device: String?

    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError) {
        let result: JSONValue
        if let device {
            result = try await connection.call(.deviceStatus(DeviceParams(device: device)))
        } else {
            result = try await connection.call(.daemonStatus)
        }
        if json { return Output.line(result.description) }
        Output.lines(KeyValueText.lines(try ResultDecoding.object(result)))
    }
}
