import AccessoryClient
import ArgumentParser
import ControlProtocol
import JSONCodec

/// `accessoryctl views [DEVICE]`: the accessories' pty views as a table (or, with `--json`,
/// `{"views":[…]}`: each view's `device.status` object with `device` added).
///
/// Threading: runs on the main task.
struct Views: ConnectionCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the pty views: path, mode, whether a program has it open, bytes each way, drops.",
        discussion: """
            TO-PROG and FROM-PROG are the bytes written to and read from the view's program; DROPPED the \
            bytes dropped for a program that did not read; REFUSED the frames refused (accessory absent, \
            locked, failed). --json prints {"views":[...]}, each as device.status gives it, with device.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Only this accessory's views.", completion: DeviceCompletion.kind)
    var device: String?

    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError) {
        var names: [String] = []
        if let device {
            names = [device]
        } else {
            let list = try await connection.call(.devicesList)
            names = try ResultDecoding.decode(list, DevicesListResult.init(json:)).devices.map(\.name)
        }
        var views: [JSONValue] = []
        for name in names {
            let status = try await connection.call(.deviceStatus(DeviceParams(device: name)))
            for case .object(let view) in status["views"]?.arrayValue ?? [] {
                views.append(.object(JSONObject(members: [.init(key: "device", value: .string(name))] + view.members)))
            }
        }
        if json { return Output.line(JSONValue.object(["views": .array(views)]).description) }
        var table = Table(
            ["DEVICE", "PATH", "MODE", "OPEN", "TO-PROG", "FROM-PROG", "DROPPED", "REFUSED", "PTY"],
            alignments: [.left, .left, .left, .left, .right, .right, .right, .right, .left]
        )
        for view in views {
            func count(_ key: String) -> String {
                view["counters"]?[key]?.int64Value.map(String.init) ?? "-"
            }
            if let error = view["error"]?.stringValue {
                table.rows.append([
                    view["device"]?.stringValue ?? "-", view["path"]?.stringValue ?? "-", "-", "error", "-", "-", "-",
                    "-", error,
                ])
                continue
            }
            var mode = view["mode"]?.stringValue ?? "-"
            if let session = view["session"]?.stringValue, session != "idle" { mode += "(\(session))" }
            table.rows.append([
                view["device"]?.stringValue ?? "-", view["path"]?.stringValue ?? "-", mode,
                view["open"]?.boolValue == true ? "yes" : "no",
                count("bytes_to_program"), count("bytes_from_program"), count("dropped_bytes"),
                count("refused_frames"), view["pty"]?.stringValue ?? "-",
            ])
        }
        Output.lines(table.lines())
    }
}
