import AccessoryTestSupport
import ControlProtocol
import Glibc
import JSONCodec
import SystemCalls
import Testing

@testable import ControlServer

@Suite("Peer credentials")
struct CredentialsTests {
    /// Answers every request with the credentials the server saw.
    static let whoAmI = TestHandler { request, connection in
        let c = connection.credentials
        connection.respond(
            id: request.id,
            result: JSONValue.object([
                "uid": .int(Int(c.uid)), "gid": .int(Int(c.gid)), "pid": .int(Int(c.pid)),
                "groups": .array(c.groups.map { .int(Int($0)) }),
                "groups_unknown": c.groupsUnknown.map(JSONValue.string) ?? .null,
            ])
        )
    }

    @Test("a client in this process: our pid, uid, gid and groups")
    func sameProcess() throws {
        try withServer(handler: Self.whoAmI) { h in
            let result = try #require(try h.client().call(listRequest(id: 1))?.result)
            #expect(result["uid"]?.int64Value == Int64(geteuid()))
            #expect(result["gid"]?.int64Value == Int64(getegid()))
            #expect(result["pid"]?.int64Value == Int64(getpid()))
            let groups = Set((result["groups"]?.arrayValue ?? []).compactMap { $0.int64Value.map(UInt32.init) })
            var own = [gid_t](repeating: 0, count: Int(getgroups(0, nil)))
            own = Array(own.prefix(Int(getgroups(CInt(own.count), &own))))
            #expect(groups == Set(own))
        }
    }

    /// Runs a Python client as uid/gid 65534 with `groupsArgument` that sends one request and
    /// prints the reply line. Returns (pid, output).
    private func runAsNobody(socket: String, groupsArgument: String) throws -> (pid_t, String) {
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(5)
            s.connect(sys.argv[1])
            s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"daemon.status"}\\n')
            buf = b''
            while not buf.endswith(b'\\n'):
                d = s.recv(4096)
                if not d:
                    break
                buf += d
            sys.stdout.write(buf.decode())
            """
        let pipe = try FileIO.pipe()
        let reader = pipe.first
        let writer = pipe.second
        let pid = try ChildProcess.spawn(
            ExternalProgram.locate("setpriv"),
            arguments: [
                "--reuid=65534", "--regid=65534", groupsArgument,
                ExternalProgram.locate("python3", forOtherUsers: true), "-c", script,
                socket,
            ],
            standardOutput: writer.rawValue
        )
        writer.close()
        var output: [UInt8] = []
        var finished = false
        let ended = Wait.until(seconds: 15) {
            if !finished, let chunk = try? FileIO.read(reader.rawValue, max: 4096) {
                if chunk.isEmpty { finished = true } else { output += chunk }
            }
            return finished && (try? ChildProcess.wait(pid, block: false)) != nil
        }
        if !ended {
            try? ChildProcess.signal(pid, SIGKILL)
            _ = try? ChildProcess.wait(pid, block: true)
        }
        return (pid, String(decoding: output, as: UTF8.self))
    }

    @Test(
        "a client running as another uid: the handler sees uid, gid, pid and groups",
        .enabled(
            if: ExternalProgram.missingAsAnotherUser("python3") == nil,
            "\(ExternalProgram.missingAsAnotherUser("python3") ?? "")"
        ),
        arguments: [("--clear-groups", [UInt32]()), ("--groups=20,1", [1, 20])]
    )
    func otherUser(groupsArgument: String, expectedGroups: [UInt32]) throws {
        // The client must reach the socket: a folder others may enter and a 0666 socket.
        try withServer(handler: Self.whoAmI, directoryMode: 0o755, socketMode: 0o666) { h in
            let (pid, output) = try runAsNobody(socket: h.path, groupsArgument: groupsArgument)
            let message = try ServerMessage.decode(Array(output.trimmingSuffixNewline.utf8))
            guard case .response(let response) = message, let result = response.result else {
                Issue.record("unexpected reply \(output)")
                return
            }
            #expect(result["uid"]?.int64Value == 65534)
            #expect(result["gid"]?.int64Value == 65534)
            #expect(result["pid"]?.int64Value == Int64(pid))
            let groups = (result["groups"]?.arrayValue ?? []).compactMap { $0.int64Value.map(UInt32.init) }
            #expect(groups.sorted() == expectedGroups)
        }
    }

    @Test(
        "without SO_PEERGROUPS the supplementary groups are unknown and empty (never read from /proc)",
        .enabled(
            if: ExternalProgram.missingAsAnotherUser("python3") == nil,
            "\(ExternalProgram.missingAsAnotherUser("python3") ?? "")"
        )
    )
    func noPeerGroupsFailsClosed() throws {
        // A kernel without SO_PEERGROUPS answers ENOPROTOOPT; SO_PEERCRED still works.
        let token = FaultInjection.install { name, _ in
            name == .getsockoptPeerGroups ? .error(Errno(rawValue: ENOPROTOOPT)) : nil
        }
        defer { FaultInjection.remove(token) }
        try withServer(handler: Self.whoAmI, directoryMode: 0o755, socketMode: 0o666) { h in
            // The client is in groups 1 and 20: /proc/<pid>/status would show them.
            let (_, output) = try runAsNobody(socket: h.path, groupsArgument: "--groups=20,1")
            let message = try ServerMessage.decode(Array(output.trimmingSuffixNewline.utf8))
            guard case .response(let response) = message, let result = response.result else {
                Issue.record("unexpected reply \(output)")
                return
            }
            #expect(result["uid"]?.int64Value == 65534)
            #expect(result["gid"]?.int64Value == 65534)
            #expect(result["groups"]?.arrayValue?.isEmpty == true, "\(result)")
            #expect(result["groups_unknown"]?.stringValue?.contains("SO_PEERGROUPS") == true, "\(result)")
            #expect(h.logs.contains(.warning, "supplementary groups unknown"), "\(h.logs.lines.value)")
        }
    }

    @Test("group membership counts the primary group")
    func membership() {
        let c = ClientCredentials(pid: 1, uid: 1000, gid: 1000, groups: [20, 44])
        #expect(c.isMember(ofGroup: 1000) && c.isMember(ofGroup: 44) && !c.isMember(ofGroup: 0))
    }
}

extension String {
    fileprivate var trimmingSuffixNewline: String {
        var s = self
        while s.hasSuffix("\n") || s.hasSuffix("\r") { s.removeLast() }
        return s
    }
}
