import AccessoryClient
import ArgumentParser
import ControlProtocol
import SystemCalls

/// `accessoryctl attach DEVICE`: standard input and output connected to an accessory's raw bytes.
///
/// Threading: runs on the main task; the byte pump runs on this thread's own loop.
struct Attach: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Connect standard input and output to an accessory's raw bytes.",
        discussion: """
            Asks accessoryd to attach: once the accessory's earlier requests are done, this \
            connection holds it (other clients' requests wait) and carries bytes both ways as they \
            are, with no framing: what you type or pipe in goes to the device, what the device \
            sends is printed. Ends at the end of the input (after --linger ms without output from \
            the device), on Ctrl-C (exit 0), or when accessoryd closes the connection because the \
            device went away (exit 1).
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The accessory.", completion: DeviceCompletion.kind)
    var device: String

    @Option(name: .customLong("wait"), help: ArgumentHelp("Wait this long for the accessory.", valueName: "ms"))
    var waitMs: Int64?

    @Option(help: ArgumentHelp("After the input ends, wait this long for more output.", valueName: "ms"))
    var linger: Int64 = 300

    func validate() throws {
        for (value, option) in [(waitMs, "--wait"), (linger, "--linger")] {
            guard let value else { continue }
            guard value >= 0 && value <= ParamLimits.maxMilliseconds else {
                throw ValidationError("\(option) must be between 0 and \(ParamLimits.maxMilliseconds) milliseconds")
            }
        }
    }

    mutating func run() async throws {
        let socket: OwnedFD
        do throws(ClientError) {
            socket = try await AccessoryConnection.connectSocket(socketPath: global.socketPath)
        } catch {
            throw ExitStatus.fail(error)
        }
        let request = Request(id: .int(1), method: .attach(AttachParams(device: device, waitMs: waitMs)))
        let outcome = RawPump.run(socket: socket, request: request.line, linger: .milliseconds(linger))
        switch outcome {
        case .finished:
            return
        case .failed(let error):
            throw ExitStatus.fail(error)
        }
    }
}
