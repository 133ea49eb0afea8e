import AccessoryTestSupport
import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// `clients.list` and `client.disconnect` against the real daemon: root frees an accessory a
/// process holds locked and the client waiting behind it is served; a client running as uid 65534
/// (through `setpriv`) can neither list nor kick.
///
/// Threading: the test's thread; it owns the scenario's processes and the children.
@Suite struct AdministratorTests {
    static var unavailableReason: String? {
        if getuid() != 0 { return "the administrator's methods are tested as root (and as nobody through setpriv)" }
        return ExternalProgram.missingAsAnotherUser("python3")
    }

    @Test(.enabled(if: unavailableReason == nil, "\(unavailableReason ?? "")"))
    func rootKicksTheLockHolderAndTheNextClientIsServed() throws {
        let (s, holder, other, waiting) = try LockHolderTests.echoLockedByAProcess(waiting: "after the kick")
        defer {
            holder.kill()
            s.finish()
        }

        let admin = try s.connect()
        let list = try admin.call("clients.list").result?["clients"]?.arrayValue ?? []
        let held = list.first { $0["pid"]?.int64Value == Int64(holder.pid) }
        try #require(held != nil, "the holder is listed: \(list)")
        #expect(held?["locks"] == .array([.string("echo")]))
        #expect(held?["uid"]?.int64Value == 0)
        #expect(held?["user"]?.stringValue == "root")
        #expect(held?["command"]?.stringValue?.hasPrefix("python") == true, "\(String(describing: held))")
        let waitingClient = list.first { $0["requests_in_flight"]?.int64Value == 1 }
        #expect(waitingClient != nil, "the parked transact is counted: \(list)")
        #expect(list.count == 3, "holder, waiting client, admin: \(list)")

        let kicked = try admin.call("client.disconnect", .object(["id": held!["id"]!]))
        #expect(kicked.result?["disconnected"] == .bool(true), "\(kicked)")
        #expect(try other.response(to: waiting, seconds: 10).frameTexts == ["after the kick"])
        let after = try admin.call("clients.list").result?["clients"]?.arrayValue ?? []
        #expect(!after.contains { $0["pid"]?.int64Value == Int64(holder.pid) }, "the holder is gone: \(after)")
        other.close()
        admin.close()
    }

    @Test(.enabled(if: unavailableReason == nil, "\(unavailableReason ?? "")"))
    func anotherUserCanNeitherListNorKick() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(accessories: [s.lineAccessory("echo")])
        let root = try s.connect()
        let mine = try root.call("clients.list").result?["clients"]?.arrayValue?.first?["id"]
        try #require(mine != nil)
        let lines = [
            RPCClient.requestLine(id: .int(1), method: "clients.list", params: nil),
            RPCClient.requestLine(id: .int(2), method: "client.disconnect", params: .object(["id": mine!])),
        ].map { String(decoding: $0.dropLast(), as: UTF8.self) }
        let child = try ChildRun(
            label: "client as uid 65534",
            executable: PermissionTests.setpriv,
            arguments: [
                "--reuid=65534", "--regid=65534", "--clear-groups", PermissionTests.python, "-c",
                PermissionTests.clientScript, s.socketPath,
            ] + lines,
            stdoutPath: s.directory.file("nobody.out"),
            stderrPath: s.directory.file("nobody.err")
        )
        let ended = child.wait(seconds: 20)
        if ended == nil { child.kill() }
        #expect(ended == .exited(0), "client: \(child.stderr)")
        let replies = child.stdout.split(separator: "\n")
        try #require(replies.count == 2, "replies: \(child.stdout)")
        for (reply, method) in zip(replies, ["clients.list", "client.disconnect"]) {
            #expect(reply.contains(#""code":1006"#), "\(reply)")
            #expect(reply.contains("\(method) is for root and the daemon's own user only"), "\(reply)")
            #expect(!reply.contains("pid"), "nothing about other clients: \(reply)")
        }
        // Root's connection was not touched.
        #expect(try root.call("devices.list").result != nil)
        root.close()
    }
}
