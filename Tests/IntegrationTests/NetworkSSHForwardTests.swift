import AccessoryTestSupport
import ControlProtocol
import Glibc
import JSONCodec
import SystemCalls
import Testing

/// A listener reached through `ssh -L` by another SSH user than the daemon's: the throwaway sshd
/// lets the unprivileged `nobody` log in with a throwaway key, the forwarded connection is made
/// by that user's sshd session process, so the daemon sees uid 65534, and the accessory's
/// `access:` lets it in or refuses it.
///
/// Threading: each test runs on its own test thread and owns its scenario and its processes.
@Suite struct NetworkSSHForwardTests {
    static let nobody: uid_t = 65_534

    static let unavailableReason: String? = {
        if getuid() != 0 { return "needs root (sshd logging in another user)" }
        if let reason = SSHServer.unavailableReason { return reason }
        guard let entry = getpwnam("nobody"), entry.pointee.pw_uid == nobody else { return "no user nobody (65534)" }
        return nil
    }()

    /// Whether something listens on 127.0.0.1:`port` (`/proc/net/tcp`, state 0A), so that the
    /// forward is ready without a probing connection (which the daemon would take for a client).
    static func listening(_ port: UInt16) -> Bool {
        let wanted = "0100007F:" + String(port, radix: 16, uppercase: true).leftPadded(to: 4)
        return FileIO.readText("/proc/net/tcp").split(separator: "\n").contains { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            return fields.count > 3 && fields[1] == wanted && fields[3] == "0A"
        }
    }

    /// `ssh -N -L LOCAL:127.0.0.1:port` as `nobody`, started and ready; the local port.
    static func forward(_ s: Scenario, _ sshd: SSHServer, to port: UInt16) throws -> (ChildRun, UInt16) {
        try sshd.authorize(user: "nobody", uid: nobody)
        let local = try NetworkListenerTests.freePort()
        let ssh = try ChildRun(
            label: "ssh -L as nobody",
            executable: ExternalProgram.locate("ssh"),
            arguments: [
                "-F", try sshd.clientConfig(), "-N", "-o", "ExitOnForwardFailure=yes",
                "-L", "127.0.0.1:\(local):127.0.0.1:\(port)", "-p", String(sshd.port), "-l", "nobody", "127.0.0.1",
            ],
            stdoutPath: s.directory.file("ssh.out"),
            stderrPath: s.directory.file("ssh.err")
        )
        let deadline = Deadline(seconds: 20)
        while !listening(local) {
            if deadline.hasPassed || ssh.wait(seconds: 0.05) != nil {
                ssh.kill()
                throw HarnessError("ssh -L did not forward: \(ssh.stderr) sshd: \(FileIO.readText(sshd.logPath))")
            }
        }
        return (ssh, local)
    }

    /// An `echo` accessory with a raw listener whose `access:` names the users `access`, and
    /// the forward to it as `nobody`: the ssh process, the forward's local port, the listener's.
    static func forwardedListener(
        _ s: Scenario,
        _ sshd: SSHServer,
        access users: String
    ) throws -> (ChildRun, local: UInt16, port: UInt16) {
        let port = try NetworkListenerTests.freePort()
        _ = try s.simulator("echo")
        try s.startDaemon(accessories: [
            s.lineAccessory(
                "echo",
                "network: [{listen: \"127.0.0.1:\(port)\", protocol: raw}], access: {users: [\(users)]}"
            )
        ])
        let (ssh, local) = try Self.forward(s, sshd, to: port)
        return (ssh, local, port)
    }

    @Test(.enabled(if: unavailableReason == nil, "\(unavailableReason ?? "")"))
    func aForwardedConnectionCarriesTheSSHUsersUidAndAccessAllowsIt() throws {
        let s = try Scenario()
        defer { s.finish() }
        let sshd = try SSHServer()
        defer { sshd.stop() }
        let (ssh, local, port) = try Self.forwardedListener(s, sshd, access: "\(Self.nobody)")
        defer { ssh.kill() }
        let client = try InetSocket.connect(to: InetEndpoint(address: [127, 0, 0, 1], port: local))
        try NetworkListenerTests.echo(client.rawValue, "through ssh\n")
        let clients = try s.connect().call("clients.list").result?["clients"]?.arrayValue ?? []
        let mine = clients.first { ($0["command"]?.stringValue ?? "").hasPrefix("raw 127.0.0.1:\(port)") }
        #expect(mine?["uid"]?.intValue == Int(Self.nobody), "\(clients)")
    }

    @Test(.enabled(if: unavailableReason == nil, "\(unavailableReason ?? "")"))
    func aForwardedConnectionOfAUserAccessDoesNotNameIsRefused() throws {
        let s = try Scenario()
        defer { s.finish() }
        let sshd = try SSHServer()
        defer { sshd.stop() }
        let (ssh, local, _) = try Self.forwardedListener(s, sshd, access: "0")
        defer { ssh.kill() }
        let client = try InetSocket.connect(to: InetEndpoint(address: [127, 0, 0, 1], port: local))
        _ = try? FileIO.write(client.rawValue, Array("ping\n".utf8))
        let said = try NetworkListenerTests.readUntilClosed(client.rawValue, seconds: 10)
        #expect(said.isEmpty, "closed without a byte of the device's: \(said)")
        #expect(s.log.contains("uid \(Self.nobody) may not use echo"), "refusal logged: \(s.log)")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
