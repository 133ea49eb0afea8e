import AccessoryClient
import ArgumentParser
import ControlProtocol
import JSONCodec

/// `accessoryctl listeners [DEVICE]`: the accessories' network listeners and their connections
/// as a table (or, with `--json`, `{"listeners":[…]}`: each listener's `device.status` object
/// with `device` added).
///
/// Threading: runs on the main task.
struct Listeners: ConnectionCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the network listeners (RFC 2217, raw TCP) and their connections, with bytes each way.",
        discussion: """
            One row per connection (a listener without one gets a row of its own). TO-CLIENT and FROM-CLIENT \
            are the bytes sent to and received from the TCP client; REFUSED the bytes it wrote while the \
            accessory was absent; SESSION attached, attaching or detached (the accessory is absent). \
            --json prints {"listeners":[...]}, each as device.status gives it, with device.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Only this accessory's listeners.", completion: DeviceCompletion.kind)
    var device: String?

    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError) {
        var names: [String] = []
        if let device {
            names = [device]
        } else {
            let list = try await connection.call(.devicesList)
            names = try ResultDecoding.decode(list, DevicesListResult.init(json:)).devices.map(\.name)
        }
        var listeners: [JSONValue] = []
        for name in names {
            let status = try await connection.call(.deviceStatus(DeviceParams(device: name)))
            for case .object(let listener) in status["listeners"]?.arrayValue ?? [] {
                listeners.append(
                    .object(JSONObject(members: [.init(key: "device", value: .string(name))] + listener.members))
                )
            }
        }
        if json { return Output.line(JSONValue.object(["listeners": .array(listeners)]).description) }
        var table = Table(
            [
                "DEVICE", "LISTEN", "PROTOCOL", "CLIENT", "REMOTE", "UID", "SESSION", "TO-CLIENT", "FROM-CLIENT",
                "REFUSED",
            ],
            alignments: [.left, .left, .left, .right, .left, .right, .left, .right, .right, .right]
        )
        for listener in listeners {
            let head = [
                listener["device"]?.stringValue ?? "-", listener["listen"]?.stringValue ?? "-",
                (listener["protocol"]?.stringValue ?? "-") + "/" + (listener["settings"]?.stringValue ?? "-"),
            ]
            if let error = listener["error"]?.stringValue {
                table.rows.append(head + ["-", "error: \(error)", "-", "-", "-", "-", "-"])
                continue
            }
            let connections = listener["connections"]?.arrayValue ?? []
            if connections.isEmpty { table.rows.append(head + ["-", "-", "-", "-", "-", "-", "-"]) }
            for c in connections {
                func count(_ key: String) -> String { c["counters"]?[key]?.int64Value.map(String.init) ?? "-" }
                table.rows.append(
                    head + [
                        c["client_id"]?.int64Value.map(String.init) ?? "-", c["remote"]?.stringValue ?? "-",
                        c["uid"]?.int64Value.map(String.init) ?? "-", c["session"]?.stringValue ?? "-",
                        count("bytes_to_client"), count("bytes_from_client"), count("refused_bytes"),
                    ]
                )
            }
        }
        Output.lines(table.lines())
    }
}
