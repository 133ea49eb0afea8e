import AccessoryClient
import ArgumentParser
import ControlProtocol
import JSONCodec

/// A command that works on an open connection: what both the command line and a `lock`
/// session's script lines run.
///
/// Threading: runs on the caller's task.
protocol SessionStep {
    /// Runs the command on `connection`; `json` prints raw results.
    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError)

    /// Whether the command itself was given `--json`.
    var printsJSON: Bool { get }
}

extension SessionStep {
    var printsJSON: Bool { false }
}

/// A subcommand that connects, runs its ``SessionStep`` body and exits with the right status.
///
/// Threading: runs on the main task.
protocol ConnectionCommand: AsyncParsableCommand, SessionStep {
    var global: GlobalOptions { get }
}

extension ConnectionCommand {
    var printsJSON: Bool { global.json }

    mutating func run() async throws {
        let command = self
        try await Runner.run(command.global) { (connection) throws(ClientError) in
            try await command.execute(on: connection, json: command.global.json)
        }
    }
}

/// Connects, runs a body on the connection, closes it, and turns a failure into its message
/// and exit status.
///
/// Threading: runs on the caller's task.
enum Runner {
    /// Runs `body` on a new connection and returns what it returns.
    static func run<Result>(
        _ global: GlobalOptions,
        _ body: (AccessoryConnection) async throws(ClientError) -> Result
    ) async throws(ExitCode) -> Result {
        let endpoint = try global.endpoint()
        let connection: AccessoryConnection
        do throws(ClientError) {
            connection = try await AccessoryConnection.connect(to: endpoint)
        } catch {
            throw ExitStatus.fail(error)
        }
        defer { connection.close() }
        var watch: DaemonAnswerWatch?
        if case .socket(let path) = endpoint { watch = DaemonAnswerWatch.start(socket: path, connection: connection) }
        defer { watch?.finish() }
        do throws(ClientError) {
            return try await body(connection)
        } catch {
            if let watch, watch.noDaemonAnswered, case .socket(let path) = endpoint {
                Output.error(DaemonAnswerWatch.message(socket: path))
                throw ExitCode(ExitStatus.daemonNotRunning)
            }
            throw ExitStatus.fail(error)
        }
    }
}

/// Typed views of raw results.
///
/// Threading: stateless. Any thread.
enum ResultDecoding {
    /// `make(json)`, a decoding failure reported as the daemon's protocol error.
    static func decode<T>(_ json: JSONValue, _ make: (JSONValue) throws(MessageDecodingError) -> T)
        throws(ClientError) -> T
    {
        do throws(MessageDecodingError) {
            return try make(json)
        } catch {
            throw .protocolError(error.message)
        }
    }

    /// The result as an object.
    static func object(_ json: JSONValue) throws(ClientError) -> JSONObject {
        guard case .object(let object) = json else {
            throw .protocolError("the result is \(json.kindDescription), not an object")
        }
        return object
    }
}
