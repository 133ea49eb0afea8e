import AccessoryClient
import ArgumentParser
import ControlProtocol
import SystemCalls

/// `accessoryctl clients`: the connected clients and what each holds (root and the daemon's
/// user only).
///
/// Threading: runs on the main task.
struct Clients: ConnectionCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the daemon's clients: id, pid, user, command, what they hold (administrators).",
        discussion: """
            For root and the daemon's own user (clients.list); anyone else is refused (exit 4). \
            HOLDS lists locks, an attach (attach:NAME) and subscriptions (sub:NAME or sub:all). \
            End one with accessoryctl kick ID.
            """
    )

    @OptionGroup var global: GlobalOptions

    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError) {
        let result = try await connection.call(.clientsList)
        if json { return Output.line(result.description) }
        guard case .array(let clients)? = try ResultDecoding.object(result)["clients"] else {
            throw .protocolError("clients.list answered without a clients array")
        }
        var table = Table(
            ["ID", "PID", "USER", "COMMAND", "CONNECTED", "HOLDS", "IN FLIGHT"],
            alignments: [.right, .right, .left, .left, .left, .left, .right]
        )
        let now = WallClock.microsecondsSinceEpoch() / 1000
        for c in clients {
            func text(_ key: String) -> String {
                switch c[key] {
                case .string(let s)?: s
                case let value? where value.int64Value != nil: String(value.int64Value!)
                default: "-"
                }
            }
            var holds = (c["locks"]?.arrayValue ?? []).compactMap(\.stringValue)
            if let attached = c["attached"]?.stringValue { holds.append("attach:\(attached)") }
            switch c["subscribed"] {
            case .string(let all)?: holds.append("sub:\(all)")
            case .array(let devices)?: holds += devices.compactMap(\.stringValue).map { "sub:\($0)" }
            default: break
            }
            let user = c["user"]?.stringValue ?? "uid \(text("uid"))"
            var since = "-"
            if let ms = c["connected_since_ms"]?.int64Value, ms > 0 {
                since = Self.ago(milliseconds: max(0, now - ms))
            }
            table.rows.append([
                text("id"), text("pid"), user, text("command"), since,
                holds.isEmpty ? "-" : holds.joined(separator: ","),
                text("requests_in_flight"),
            ])
        }
        Output.lines(table.lines())
    }

    /// "45s ago", "12m3s ago", "2h5m ago".
    static func ago(milliseconds: Int64) -> String {
        let s = milliseconds / 1000
        if s < 60 { return "\(s)s ago" }
        if s < 3600 { return "\(s / 60)m\(s % 60)s ago" }
        return "\(s / 3600)h\((s % 3600) / 60)m ago"
    }
}

/// `accessoryctl kick ID`: ends one client's connection (root and the daemon's user only).
///
/// Threading: runs on the main task.
struct Kick: ConnectionCommand {
    static let configuration = CommandConfiguration(
        abstract: "Disconnect a client: its locks are released, its requests answered (administrators).",
        discussion: "ID is from accessoryctl clients (client.disconnect)."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The client's id, from accessoryctl clients.") var id: UInt64

    func validate() throws {
        if id == 0 { throw ValidationError("ID is a positive integer, from accessoryctl clients") }
    }

    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError) {
        let result = try await connection.call(.clientDisconnect(ClientParams(id: id)))
        if json { return Output.line(result.description) }
        Output.line("client \(id) disconnected")
    }
}
