import AccessoryClient
import ArgumentParser
import ControlProtocol

/// `accessoryctl metrics`: the daemon's and each accessory's counters in Prometheus' text
/// exposition format, for node_exporter's textfile collector (see docs/operations.md).
///
/// Threading: runs on the main task.
struct Metrics: ConnectionCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the daemon's and each accessory's counters in Prometheus' text format.",
        discussion: """
            Built from daemon.status and each accessory's device.status: counters end in _total, \
            gauges do not, every accessory's series carry an accessory label, request latency is a \
            summary (quantiles 0.5 and 0.99, in seconds), and the state is a gauge per state, 1 for \
            the current one. A caller who is not root or the daemon's user sees only what \
            daemon.status and device.status show it. --json prints the status results instead.
            """
    )

    @OptionGroup var global: GlobalOptions

    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError) {
        let daemon = try ResultDecoding.object(try await connection.call(.daemonStatus))
        let list = try await connection.call(.devicesList)
        let names = try ResultDecoding.decode(list, DevicesListResult.init(json:)).devices.map(\.name)
        var accessories: [(String, JSONObject)] = []
        for name in names {
            do throws(ClientError) {
                let status = try await connection.call(.deviceStatus(DeviceParams(device: name)))
                accessories.append((name, try ResultDecoding.object(status)))
            } catch {
                // Removed by a reload between the list and its status: not an error of ours.
                if case .rpc(let rpc) = error, rpc.errorCode == .unknownDevice { continue }
                throw error
            }
        }
        if json {
            var object = JSONObject()
            object.append("daemon", .object(daemon))
            object.append("accessories", .object(JSONObject(accessories.map { ($0.0, JSONValue.object($0.1)) })))
            return Output.line(JSONValue.object(object).description)
        }
        var text = PrometheusText()
        MetricsMapping.addDaemon(daemon, to: &text)
        for (name, status) in accessories { MetricsMapping.addAccessory(name, status, to: &text) }
        Output.lines([String(text.text.dropLast())])
    }
}
