import AccessoryTestSupport
import ControlProtocol
import Glibc
import JSONCodec
import SystemCalls
import Testing

/// Per-accessory access (`access: {users: [0]}`) enforced from `SO_PEERCRED`: a client running
/// as uid 65534 (through `setpriv`) cannot tell the accessory from one that does not exist, by
/// any method, and does not see it in `devices.list` nor in `daemon.status`'s counts.
///
/// Threading: the test's thread; it owns the daemon, the simulators and the client child.
@Suite struct PermissionTests {
    static let setpriv = ExternalProgram.locate("setpriv")
    static let python = ExternalProgram.locate("python3", forOtherUsers: true)

    static var unavailableReason: String? {
        ExternalProgram.missingAsAnotherUser("python3")
    }

    /// Sends each argument after the socket path as one request line and prints each reply line.
    static let clientScript = """
        import socket, sys
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect(sys.argv[1])
        f = s.makefile("rwb")
        for line in sys.argv[2:]:
            f.write(line.encode() + b"\\n")
            f.flush()
            sys.stdout.write(f.readline().decode())
        sys.stdout.flush()
        """

    @Test(.enabled(if: unavailableReason == nil, "\(unavailableReason ?? "")"))
    func anotherUserIsDeniedAndDoesNotSeeTheAccessory() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("open")
        try s.simulator("secret")
        try s.startDaemon(accessories: [
            s.lineAccessory("open"),
            s.lineAccessory("secret", "access: {users: [0]}"),
        ])

        // Every method that names an accessory, once for the hidden one and once for a name
        // that does not exist.
        func naming(_ device: String) -> [(String, JSONValue?)] {
            [
                ("device.status", Params.device(device)),
                ("transact", Params.transfer(device, "let me in", waitMs: 100)),
                ("write", Params.transfer(device, "x")),
                ("read", ["device": .string(device), "timeout_ms": 50]),
                ("lock", ["device": .string(device), "lease_ms": 1000]),
                ("unlock", Params.device(device)),
                ("subscribe", Params.device(device)),
                ("unsubscribe", Params.device(device)),
                ("attach", ["device": .string(device), "wait_ms": 100]),
            ]
        }
        let hidden = naming("secret")
        let missing = naming("ghost")
        let requests: [(String, JSONValue?)] =
            [("devices.list", nil), ("daemon.status", nil)] + hidden + missing + [
                ("transact", Params.transfer("open", "allowed"))
            ]
        let lines = requests.enumerated().map { index, request in
            String(
                decoding: RPCClient.requestLine(id: .int(Int64(index)), method: request.0, params: request.1)
                    .dropLast(),
                as: UTF8.self
            )
        }
        let child = try ChildRun(
            label: "client as uid 65534",
            executable: Self.setpriv,
            arguments: [
                "--reuid=65534", "--regid=65534", "--clear-groups", Self.python, "-c", Self.clientScript, s.socketPath,
            ] + lines,
            stdoutPath: s.directory.file("nobody.out"),
            stderrPath: s.directory.file("nobody.err")
        )
        let ended = child.wait(seconds: 20)
        if ended == nil { child.kill() }
        #expect(ended == .exited(0), "client: \(child.stderr)")
        let responses = try child.stdout.split(separator: "\n").map { line -> Response in
            guard case .response(let r) = try ServerMessage.decode(Array(line.utf8)) else {
                throw HarnessError("not a response: \(line)")
            }
            return r
        }
        try #require(responses.count == requests.count, "replies: \(child.stdout)")

        let visible = responses[0].result?["devices"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(visible == ["open"])
        // daemon.status: the version and what this caller may see, nothing about other clients.
        let status = try #require(responses[1].result, "\(responses[1])")
        #expect(status["version"] != nil)
        #expect(status["accessories"]?.int64Value == 1, "\(status)")
        for key in ["clients", "pid", "uptime_s", "requests_decoded", "clients_rejected"] {
            #expect(status[key] == nil, "\(key) shown to an unprivileged caller: \(status)")
        }
        let offset = 2
        for (i, request) in hidden.enumerated() {
            let secret = responses[offset + i]
            let ghost = responses[offset + hidden.count + i]
            #expect(secret.code == 1001, "\(request.0) on a hidden accessory: \(secret)")
            #expect(secret.code == ghost.code, "\(request.0): \(secret) vs \(ghost)")
            // The messages name what the caller asked for, and nothing else differs.
            let asked = secret.error?.message.split(separator: "secret", omittingEmptySubsequences: false)
            #expect(
                asked?.joined(separator: "ghost") == ghost.error?.message,
                "\(request.0): \(secret) vs \(ghost)"
            )
            #expect(secret.error?.data == ghost.error?.data, "\(request.0): \(secret) vs \(ghost)")
        }
        #expect(responses.last?.frameTexts == ["allowed"])

        // Root (this test) sees and uses both.
        let root = try s.connect()
        let names = try root.result("devices.list")["devices"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(names == ["open", "secret"])
        #expect(try root.call("transact", Params.transfer("secret", "root")).frameTexts == ["root"])
        root.close()
    }
}

/// Access by group: `access: {groups: [dialout]}` lets a client whose supplementary groups
/// include dialout in, and keeps the same uid without the group out, for every method that
/// names the accessory.
extension PermissionTests {
    /// Runs the client script as uid 65534 with `groups` and returns one response per request.
    static func responses(
        _ s: Scenario,
        groups: [String],
        _ requests: [(String, JSONValue?)],
        tag: String
    ) throws -> [Response] {
        let lines = requests.enumerated().map { index, request in
            String(
                decoding: RPCClient.requestLine(id: .int(Int64(index)), method: request.0, params: request.1)
                    .dropLast(),
                as: UTF8.self
            )
        }
        let child = try ChildRun(
            label: "client as uid 65534 (\(tag))",
            executable: setpriv,
            arguments: ["--reuid=65534", "--regid=65534"] + groups + [python, "-c", clientScript, s.socketPath] + lines,
            stdoutPath: s.directory.file("\(tag).out"),
            stderrPath: s.directory.file("\(tag).err")
        )
        let ended = child.wait(seconds: 20)
        if ended == nil { child.kill() }
        guard ended == .exited(0) else {
            throw HarnessError("client \(tag) ended \(String(describing: ended)): \(child.stderr)")
        }
        let responses = try child.stdout.split(separator: "\n").map { line -> Response in
            guard case .response(let r) = try ServerMessage.decode(Array(line.utf8)) else {
                throw HarnessError("not a response: \(line)")
            }
            return r
        }
        guard responses.count == requests.count else { throw HarnessError("replies: \(child.stdout)") }
        return responses
    }

    @Test(
        .enabled(
            if: unavailableReason == nil && getgrnam("dialout") != nil,
            "\(unavailableReason ?? "there is no dialout group")"
        )
    )
    func groupMembershipDecidesAccessForEveryMethodNamingTheAccessory() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("team")
        try s.startDaemon(accessories: [s.lineAccessory("team", "access: {groups: [dialout]}")])
        let dialout = try #require(getgrnam("dialout")).pointee.gr_gid
        let requests: [(String, JSONValue?)] = [
            ("devices.list", nil),
            ("device.status", Params.device("team")),
            ("transact", Params.transfer("team", "hello")),
            ("write", Params.transfer("team", "w")),
            ("read", ["device": "team", "timeout_ms": 50]),
            ("subscribe", Params.device("team")),
            ("lock", Params.device("team")),
            ("unlock", Params.device("team")),
        ]
        let outsider = try Self.responses(s, groups: ["--clear-groups"], requests, tag: "outsider")
        #expect(outsider[0].result?["devices"]?.arrayValue?.isEmpty == true, "\(outsider[0])")
        for (request, r) in zip(requests.dropFirst(), outsider.dropFirst()) {
            #expect(r.code == 1001, "\(request.0) as an outsider: \(r)")
        }
        let member = try Self.responses(s, groups: ["--groups=\(dialout)"], requests, tag: "member")
        let names = member[0].result?["devices"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(names == ["team"])
        #expect(member[1].result?["state"] == "ready", "\(member[1])")
        #expect(member[2].frameTexts == ["hello"], "\(member[2])")
        for (request, r) in zip(requests.dropFirst(3), member.dropFirst(3)) {
            #expect(r.code != 1006 && r.code != 1001, "\(request.0) as a member: \(r)")
        }
        #expect(member[6].result?["locked"] == true, "\(member[6])")
        #expect(member[7].result?["unlocked"] == true, "\(member[7])")
    }
}
