import AccessoryClient
import AccessoryTestSupport
import ControlProtocol
import SystemCalls
import Testing

/// `ssh://` URLs: what is accepted and what ssh is given.
///
/// Threading: pure functions, any task.
@Suite struct SSHDestinationTests {
    @Test func acceptsUserHostAndPortAndGivesThemToSSHAsOptions() throws {
        let destination = try SSHDestination(url: "ssh://pi@lab-3.local:2222")
        #expect(destination.user == "pi" && destination.host == "lab-3.local" && destination.port == 2222)
        #expect(destination.description == "ssh://pi@lab-3.local:2222")
        let command = try RemoteCommand("/opt/bin/accessoryctl --socket /run/x.sock")
        #expect(
            SSHDestinationTests.arguments(destination, command) == [
                "-F", "cfg", "-l", "pi", "-p", "2222", "-T", "--", "lab-3.local",
                "/opt/bin/accessoryctl", "--socket", "/run/x.sock", "dial-stdio",
            ]
        )
        #expect(try SSHDestination(url: "ssh://[::1]:22").host == "::1")
        #expect(try SSHDestination(url: "ssh://[::1]").description == "ssh://[::1]")
        #expect(try SSHDestination(url: "ssh://lab_2/").description == "ssh://lab_2")
    }

    @Test(arguments: [
        "tcp://host", "ssh://", "ssh://-oProxyCommand=sh", "ssh://-host", "ssh://u;id@h", "ssh://u:pw@h",
        "ssh://h:0", "ssh://h:65536", "ssh://h:22x", "ssh://h:", "ssh://h/path", "ssh://h?x", "ssh://h h",
        "ssh://$(id)", "ssh://h`id`", "ssh://[::1", "ssh://[zz]", "ssh://@h", "ssh://-u@h",
    ])
    func refusesAnythingElse(_ url: String) {
        #expect(throws: SSHDestinationError.self) { _ = try SSHDestination(url: url) }
    }

    @Test(arguments: ["accessoryctl; rm -rf /", "a|b", "a$(id)", "a'b", "a\"b", "a>b", "a*", "~/x", "a\tb", ""])
    func remoteCommandsWithShellSyntaxAreRefused(_ text: String) {
        #expect(throws: SSHDestinationError.self) { _ = try RemoteCommand(text) }
    }

    @Test func sshsLastWordsAreKeptShort() {
        let noise = String(repeating: "debug1: something long enough to matter\n", count: 100)
        let message = SSHTunnel.message(from: Array((noise + "Host key verification failed.\r\n").utf8))
        #expect(message.hasSuffix("Host key verification failed."))
        #expect(message.count < 1100)
        #expect(SSHTunnel.message(from: []) == "")
    }

    static func arguments(_ destination: SSHDestination, _ command: RemoteCommand) -> [String] {
        destination.sshArguments(configFile: "cfg", remoteCommand: command)
    }
}

/// ``AccessoryConnection/connect(host:remoteCommand:sshConfig:eventBufferLimit:)`` through a real
/// sshd on 127.0.0.1 (``SSHServer``), to a fake daemon in this process: the remote command is the
/// built accessoryctl's `dial-stdio` on the fake's socket.
///
/// Threading: each test runs on its own task with its own sshd and fake daemon.
@Suite(.serialized) struct RemoteConnectTests {
    static var unavailableReason: String? {
        SSHServer.unavailableReason ?? (CtlProcess.executable == nil ? CtlProcess.notBuilt : nil)
    }

    @Test(.enabled(if: unavailableReason == nil, "\(unavailableReason ?? "")"))
    func callsAndTheirEndThroughSSH() async throws {
        let daemon = try FakeDaemon { request, peer in
            if case .deviceStatus = request.method {
                peer.close()  // the daemon goes away mid-call
                return
            }
            MethodTests.answer(request, peer)
        }
        defer { daemon.stop() }
        let sshd = try SSHServer()
        defer { sshd.stop() }
        let ctl = try #require(CtlProcess.executable)
        let connection = try await AccessoryConnection.connect(
            host: sshd.url,
            remoteCommand: "\(ctl) --socket \(daemon.socketPath)",
            sshConfig: try sshd.clientConfig()
        )
        #expect(connection.socketPath == sshd.url)
        let devices = try await bounded(30) { try await connection.listDevices() }
        #expect(devices.map(\.name) == ["echo", "gps"])
        let frames = try await bounded(30) { try await connection.transact(device: "echo", text: "AT") }
        #expect(frames.frames.map(\.text) == ["AT", "OK"])
        let lost = try await bounded(30) { await clientError { _ = try await connection.status(device: "echo") } }
        guard case .remoteEnded(let host, _, let status)? = lost else {
            Issue.record("expected remoteEnded, got \(String(describing: lost))")
            return
        }
        #expect(host == sshd.url && status == 0)
        #expect(lost?.description.contains("the remote accessoryd closed it") == true)
        #expect(lost?.codeName == "disconnected")
        #expect(connection.endReason == lost)
        #expect(await clientError { _ = try await connection.listDevices() } == lost)
    }

    @Test(.enabled(if: unavailableReason == nil, "\(unavailableReason ?? "")"))
    func aWrongHostKeyFailsTheFirstCallWithSSHsMessage() async throws {
        let daemon = try FakeDaemon { request, peer in MethodTests.answer(request, peer) }
        defer { daemon.stop() }
        let sshd = try SSHServer()
        defer { sshd.stop() }
        let ctl = try #require(CtlProcess.executable)
        let connection = try await AccessoryConnection.connect(
            host: sshd.url,
            remoteCommand: "\(ctl) --socket \(daemon.socketPath)",
            sshConfig: try sshd.clientConfig(wrongHostKey: true)
        )
        let failure = try await bounded(30) { await clientError { _ = try await connection.listDevices() } }
        guard case .remoteEnded(_, let message, let status)? = failure else {
            Issue.record("expected remoteEnded, got \(String(describing: failure))")
            return
        }
        #expect(message.contains("Host key verification failed"), "\(message)")
        #expect(status == 255)
        #expect(daemon.connectionCount == 0)
    }

    @Test func aMalformedHostIsRefusedBeforeSSHRuns() async {
        let error = await clientError { _ = try await AccessoryConnection.connect(host: "ssh://-oProxyCommand=id") }
        guard case .connectionFailed(_, let reason)? = error else {
            Issue.record("expected connectionFailed, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("not starting with '-'"))
    }
}
