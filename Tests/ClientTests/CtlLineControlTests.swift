import ControlProtocol
import SystemCalls
import Testing

/// `accessoryctl line`, `reset`, `break`, `clients` and `kick` against the fake daemon: the
/// requests they send and what they print.
///
/// Threading: each test runs on its own task with its own fake daemon and child process.
@Suite(.enabled(if: CtlProcess.executable != nil, Comment(rawValue: CtlProcess.notBuilt)))
struct CtlLineControlTests {
    @Test func lineResetAndBreakSendTheirControlRequests() async throws {
        let daemon = try FakeDaemon(script: MethodTests.answer)
        defer { daemon.stop() }
        let line = try await CtlProcess.run([
            "line", "--socket", daemon.socketPath, "esp", "--dtr", "off", "--rts", "on",
        ])
        #expect(line.status == 0, "\(line)")
        #expect(line.stdoutLines.contains("rts: true") && line.stdoutLines.contains("dtr: false"), "\(line)")
        let reset = try await CtlProcess.run(["reset", "--socket", daemon.socketPath, "esp", "--sequence", "esp32"])
        #expect(reset.status == 0, "\(reset)")
        let brk = try await CtlProcess.run(["break", "--socket", daemon.socketPath, "esp", "--ms", "40"])
        #expect(brk.status == 0, "\(brk)")
        let sent = daemon.requests.map(\.method)
        #expect(
            sent == [
                .control(ControlParams(device: "esp", dtr: false, rts: true)),
                .control(
                    ControlParams(
                        device: "esp",
                        sequence: [
                            LineStep(dtr: false, rts: true, ms: 100), LineStep(dtr: true, rts: false, ms: 50),
                            LineStep(dtr: false, ms: 0),
                        ]
                    )
                ),
                .control(ControlParams(device: "esp", breakMs: 40)),
            ]
        )
        let none = try await CtlProcess.run(["line", "--socket", daemon.socketPath, "esp"])
        #expect(none.status == 2, "a line command that sets nothing is a usage error: \(none)")
    }

    @Test func clientsPrintsATableAndKickSendsTheID() async throws {
        let daemon = try FakeDaemon(script: MethodTests.answer)
        defer { daemon.stop() }
        let clients = try await CtlProcess.run(["clients", "--socket", daemon.socketPath])
        #expect(clients.status == 0, "\(clients)")
        #expect(clients.stdoutLines.first?.hasPrefix("ID") == true, "\(clients)")
        #expect(clients.stdoutLines.last?.contains("4121") == true, "\(clients)")
        #expect(clients.stdoutLines.last?.contains("minicom") == true, "\(clients)")
        #expect(clients.stdoutLines.last?.contains("modem") == true, "\(clients)")
        let kick = try await CtlProcess.run(["kick", "--socket", daemon.socketPath, "3"])
        #expect(kick.status == 0 && kick.stdoutLines == ["client 3 disconnected"], "\(kick)")
        #expect(daemon.requests.map(\.method) == [.clientsList, .clientDisconnect(ClientParams(id: 3))])
    }
}
