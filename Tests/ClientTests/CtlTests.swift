import JSONCodec
import SystemCalls
import Testing

@testable import ControlProtocol

/// `accessoryctl` end to end against the fake daemon: output, --json, input encodings.
///
/// Threading: each test runs on its own task with its own fake daemon and child process.
@Suite(.enabled(if: CtlProcess.executable != nil, Comment(rawValue: CtlProcess.notBuilt)))
struct CtlTests {
    @Test func listPrintsATable() async throws {
        let daemon = try FakeDaemon(script: MethodTests.answer)
        defer { daemon.stop() }
        let run = try await CtlProcess.run(["list", "--socket", daemon.socketPath])
        #expect(run.status == 0, "\(run)")
        #expect(
            run.stdoutLines == [
                "NAME  STATE   TRANSPORT  PATH        QUEUE",
                "echo  ready   simulated  /dev/pts/3      0",
                "gps   absent  serial     -               2",
            ],
            "\(run)"
        )
        #expect(run.stderr.isEmpty)
    }

    @Test func jsonPrintsTheResultAsSent() async throws {
        let daemon = try FakeDaemon(script: MethodTests.answer)
        defer { daemon.stop() }
        let run = try await CtlProcess.run(["list", "--json", "--socket", daemon.socketPath])
        var expected: [UInt8] = []
        DevicesListResult(devices: [
            DeviceSummary(name: "echo", state: .ready, transport: "simulated", path: "/dev/pts/3", queueDepth: 0),
            DeviceSummary(name: "gps", state: .absent, transport: "serial", path: nil, queueDepth: 2),
        ]).encodeJSON(into: &expected)
        #expect(run.status == 0 && run.stdout == String(decoding: expected, as: UTF8.self) + "\n", "\(run)")
        let transact = try await CtlProcess.run(["transact", "--json", "--socket", daemon.socketPath, "modem", "AT"])
        let parsed = try JSONParser.parse(Array(transact.stdout.utf8))
        #expect(
            try TransactResult(json: parsed)
                == TransactResult(frames: [Frame(text: "AT"), Frame(text: "OK")], elapsedMs: 7)
        )
    }

    @Test func transactSendsTextAndPrintsEachFrame() async throws {
        let daemon = try FakeDaemon { request, peer in
            peer.reply(
                request.id,
                TransactResult(frames: [Frame(text: "+CSQ: 23,99"), Frame(text: "OK\r")], elapsedMs: 3)
            )
        }
        defer { daemon.stop() }
        let run = try await CtlProcess.run([
            "transact", "--socket", daemon.socketPath, "--timeout", "500", "modem", "AT+CSQ",
        ])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdoutLines == ["+CSQ: 23,99", "OK\\r"])
        #expect(
            daemon.requests.map(\.method) == [
                .transact(TransferParams(device: "modem", data: Array("AT+CSQ".utf8), timeoutMs: 500))
            ]
        )
    }

    @Test func transactHexSendsBytesAndBinaryFramesPrintAsAHexDump() async throws {
        let daemon = try FakeDaemon { request, peer in
            guard case .transact(let params) = request.method else { return }
            peer.reply(request.id, TransactResult(frames: [Frame(params.data + [0x41])], elapsedMs: 1))
        }
        defer { daemon.stop() }
        let run = try await CtlProcess.run(["transact", "--socket", daemon.socketPath, "--hex", "echo", "01 02:FF"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdoutLines == ["00000000  01 02 ff 41" + String(repeating: " ", count: 39) + "|...A|"])
        #expect(daemon.requests.map(\.method) == [.transact(TransferParams(device: "echo", data: [1, 2, 0xFF]))])
        let base64 = try await CtlProcess.run(["transact", "--socket", daemon.socketPath, "--base64", "echo", "AQL/"])
        #expect(base64.status == 0, "\(base64)")
        #expect(daemon.requests.last?.method == .transact(TransferParams(device: "echo", data: [1, 2, 0xFF])))
    }

    @Test func statusPrintsKeyValueLinesAndWriteAndReadWork() async throws {
        let daemon = try FakeDaemon { request, peer in
            switch request.method {
            case .deviceStatus:
                peer.reply(
                    request.id,
                    JSONValue.object([
                        "state": "ready", "counters": ["bytes_in": 12, "frames": 3], "last_error": nil,
                    ])
                )
            case .write: peer.reply(request.id, WriteResult(written: 5))
            default: peer.reply(request.id, ReadResult(frames: [Frame(text: "$GPGGA"), Frame(text: "$GPRMC")]))
            }
        }
        defer { daemon.stop() }
        let status = try await CtlProcess.run(["status", "--socket", daemon.socketPath, "gps"])
        #expect(
            status.stdoutLines == [
                "state:             ready", "counters.bytes_in: 12", "counters.frames:   3", "last_error:        -",
            ]
        )
        let write = try await CtlProcess.run(["write", "--socket", daemon.socketPath, "modem", "ATZ"])
        #expect(write.status == 0 && write.stdoutLines == ["5 bytes written"], "\(write)")
        let read = try await CtlProcess.run([
            "read", "--socket", daemon.socketPath, "gps", "--timeout", "100", "--max-frames", "2",
        ])
        #expect(read.status == 0 && read.stdoutLines == ["$GPGGA", "$GPRMC"], "\(read)")
        #expect(daemon.requests.last?.method == .read(ReadParams(device: "gps", timeoutMs: 100, maxFrames: 2)))
    }

    @Test func globalOptionsMayComeBeforeTheSubcommand() async throws {
        let daemon = try FakeDaemon(script: MethodTests.answer)
        defer { daemon.stop() }
        let run = try await CtlProcess.run(["--socket", daemon.socketPath, "--json", "status"])
        #expect(run.status == 0 && run.stdout == #"{"version":"0.1.0","clients":1}"# + "\n", "\(run)")
    }

    @Test func theSocketComesFromTheEnvironmentWhenNotGiven() async throws {
        let daemon = try FakeDaemon(script: MethodTests.answer)
        defer { daemon.stop() }
        let run = try await CtlProcess.run(["list"], environment: ["ACCESSORYD_SOCKET=\(daemon.socketPath)"])
        #expect(run.status == 0 && run.stdoutLines.count == 3, "\(run)")
    }

    @Test func completionScriptsAreGenerated() async throws {
        let run = try await CtlProcess.run(["--generate-completion-script", "bash"])
        #expect(run.status == 0 && run.stdout.contains("accessoryctl"), "\(run)")
    }
}
