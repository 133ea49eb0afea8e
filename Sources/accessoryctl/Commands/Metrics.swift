import AccessoryClient
import ArgumentParser
import ControlProtocol
import JSONCodec
import SystemCalls

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
            daemon.status and device.status show it. --json prints the status results instead. \
            --output FILE replaces FILE as a whole (node_exporter's textfile collector never reads \
            half of it), in a folder nobody else may write.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(
        help: ArgumentHelp(
            "Replace this file with the metrics (mode 0644) instead of printing them: written under a new, "
                + "unpredictable name beside it and renamed over it; its folder must be yours or root's and "
                + "writable by nobody else (a sticky folder will do).",
            valueName: "file"
        ),
        completion: .file()
    )
    var output: String?

    mutating func run() async throws {
        guard let output else {
            let command = self
            try await Runner.run(command.global) { (connection) throws(ClientError) in
                Output.lines([try await command.render(on: connection, json: command.global.json)])
            }
            return
        }
        // The folder first: nothing is asked of the daemon for a file that cannot be written safely.
        let folder = PathParts.folder(of: output)
        do {
            try DirectorySafety.publishingFor(uid: UserDatabase.effectiveUserID).check(folder)
        } catch {
            Output.error("error: not writing \(output): \(error)")
            throw ExitCode(ExitStatus.requestFailed)
        }
        let command = self
        let text = try await Runner.run(command.global) { (connection) throws(ClientError) in
            try await command.render(on: connection, json: command.global.json)
        }
        do {
            try FileIO.replace(output, with: Array((text + "\n").utf8), mode: 0o644)
        } catch {
            Output.error("error: cannot write \(output): \(error)")
            throw ExitCode(ExitStatus.requestFailed)
        }
    }

    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError) {
        Output.lines([try await render(on: connection, json: json)])
    }

    /// The metrics as text (or the status results as JSON), without the final newline.
    func render(on connection: AccessoryConnection, json: Bool) async throws(ClientError) -> String {
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
            return JSONValue.object(object).description
        }
        var text = PrometheusText()
        MetricsMapping.addDaemon(daemon, to: &text)
        for (name, status) in accessories { MetricsMapping.addAccessory(name, status, to: &text) }
        return String(text.text.dropLast())
    }
}
