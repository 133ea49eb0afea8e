import AccessoryTestSupport
import ControlProtocol
import Glibc
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
            let expected = Set(ProcessStatus.supplementaryGroups(ofProcess: getpid()) ?? [])
            #expect(groups == expected)
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

    @Test("the Groups: line of /proc/<pid>/status")
    func procGroupsParsing() {
        let text = Array("Name:\tx\nUid:\t0\t0\t0\t0\nGroups:\t4 24 27 \nNgid:\t0\n".utf8)
        #expect(ProcessStatus.groups(inStatus: text) == [4, 24, 27])
        #expect(ProcessStatus.groups(inStatus: Array("Groups:\t\n".utf8)) == [])
        #expect(ProcessStatus.groups(inStatus: Array("Name:\tx\n".utf8)) == nil)
        #expect(ProcessStatus.supplementaryGroups(ofProcess: getpid()) != nil)
        #expect(ProcessStatus.supplementaryGroups(ofProcess: -1) == nil)
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
