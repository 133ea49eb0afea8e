import AccessoryClient
import ArgumentParser
import ControlProtocol
import Glibc
import JSONCodec
import SystemCalls
import TrafficTrace

/// `accessoryctl record DEVICE -o FILE`: a live session with one accessory, written as a
/// recording that `accessory-sim --replay` plays back (docs/replay.md).
///
/// Threading: runs on the main task; records, the time limit and signals are awaited by child
/// tasks (``RecordingSink`` takes the records).
struct Record: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record an accessory's traffic to a file that accessory-sim --replay plays back.",
        discussion: """
            Subscribes to DEVICE's traffic (device.traffic) and state changes and writes each \
            request, each read from the device (with the request it answers), each DTR/RTS set \
            and break a control request made, and each open or unplug to FILE as a versioned JSON Lines recording (docs/replay.md), until Ctrl-C or \
            SIGTERM (exit 0), --count records, or --duration. FILE is replaced, mode 0600. \
            --redact REGEX (repeatable) masks every matching byte with '*' in both directions \
            before it is written. Needs permission to use DEVICE, as requests do.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The accessory.", completion: DeviceCompletion.kind)
    var device: String

    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("The recording.", valueName: "file"))
    var output: String

    @Option(help: ArgumentHelp("Stop after this many traffic records.", valueName: "n"))
    var count: Int?

    @Option(help: ArgumentHelp("Stop after this long.", valueName: "ms"))
    var duration: Int64?

    @Option(
        help: ArgumentHelp(
            "Mask the bytes this regular expression matches (bytes as Latin-1; repeatable).",
            valueName: "regex"
        )
    )
    var redact: [String] = []

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        try Milliseconds.check(duration, "--duration")
        do throws(RecordingError) {
            _ = try ByteRedactor(patterns: redact)
        } catch {
            throw ValidationError("--redact: \(error.message)")
        }
    }

    mutating func run() async throws {
        let fd: OwnedFD
        do throws(SyscallError) {
            fd = try FileIO.open(output, flags: O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
        } catch {
            Output.error("error: cannot write \(output): \(error)")
            throw ExitCode(ExitStatus.requestFailed)
        }
        let sink = RecordingSink(fd: fd, redactor: try ByteRedactor(patterns: redact))
        let command = self
        try await Runner.run(command.global) { (connection) throws(ClientError) in
            try await command.record(on: connection, into: sink)
        }
        if let failure = sink.failure {
            Output.error("error: cannot write \(command.output): \(failure)")
            throw ExitCode(ExitStatus.requestFailed)
        }
    }

    private func record(on connection: AccessoryConnection, into sink: RecordingSink) async throws(ClientError) {
        let signals = try? SignalWatch.startForInterrupts()
        let status = try await connection.status(device: device)
        var settings: [String: String] = [:]
        for key in ["transport", "path", "settings"] {
            guard let value = status[key] else { continue }
            var text: [UInt8] = []
            JSONOutput.appendValue(value, to: &text)
            settings[key] = String(decoding: text, as: UTF8.self)
        }
        try await connection.subscribe(device: device, events: [.traffic, .state])
        // The header after the subscription: a caller that sees it knows recording has begun.
        // Records that came meanwhile wait in the connection's event stream, behind it.
        sink.start(device: device, settings: settings)
        try await EventFollowing.follow(connection, signals: signals, count: count, durationMs: duration) { event in
            switch event {
            case .traffic(let record):
                sink.add(record)
                return true
            case .state(_, let state, _):
                sink.add(state: state)
                return false
            case .data:
                return false
            }
        }
    }
}
