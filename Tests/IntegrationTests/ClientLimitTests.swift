import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// Limits that need the real daemon: the idle timeout of `attach` (a raw connection), and
/// connections per uid (a client of another uid, through `setpriv`).
///
/// Threading: each test runs on its own test thread and owns its scenario's processes.
@Suite struct ClientLimitTests {
    @Test func anIdleAttachIsEndedWithANoticeAndTheAccessoryServesTheOthers() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(limits: [("attach_idle_ms", 400)], accessories: [s.lineAccessory("echo")])
        let raw = try s.connect()
        let other = try s.connect()
        #expect(try raw.result("attach", Params.device("echo"))["attached"] == true)
        // Activity keeps the session: bytes every 100 ms for well over the idle limit.
        let started = Deadline(seconds: 1.2)
        var echoes = 0
        while !started.hasPassed {
            try raw.send(raw: Array("ping \(echoes)\n".utf8))
            #expect(try raw.readTextLine(seconds: 2) == "ping \(echoes)")
            echoes += 1
            usleep(100_000)
        }
        // Others wait with wait_ms, and are refused at once without it.
        let waiting = try other.send("transact", Params.transfer("echo", "after the attach", waitMs: 10_000))
        let refused = try other.call("transact", Params.transfer("echo", "now"))
        #expect(refused.code == 1002, "\(refused)")
        // Then silence: the session ends with a notice line, and the connection closes.
        #expect(try raw.readTextLine(seconds: 5) == "", "the notice starts on a line of its own")
        let notice = try #require(try raw.readTextLine(seconds: 5))
        guard case .notification(let n) = try ServerMessage.decode(Array(notice.utf8)) else {
            Issue.record("not a notification: \(notice)")
            return
        }
        #expect(n.method == "device.detached")
        #expect(n.params["limit"] == "attach_idle_ms", "\(notice)")
        #expect(n.params["device"] == "echo")
        #expect(raw.waitUntilClosed(seconds: 5))
        #expect(try other.response(to: waiting).frameTexts == ["after the attach"])
        #expect(s.log.contains("limits.attach_idle_ms"), "\(s.log)")
        other.close()
    }

    /// Opens `count` connections as uid 65534 and prints, per connection, the reply to one
    /// `daemon.status` (or the line the daemon sent on refusing it); then closes the first and
    /// connects once more. Every connection stays open until the end.
    static let connectionsScript = """
        import socket, sys, time
        path, count = sys.argv[1], int(sys.argv[2])
        def attempt():
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(10)
            s.connect(path)
            try:
                s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"daemon.status"}\\n')
            except OSError:
                pass  # refused: the daemon wrote its line and closed
            f = s.makefile("rb")
            return s, f, f.readline().decode() or "closed\\n"
        def report(attempted):
            sys.stdout.write(attempted[2])
            sys.stdout.flush()
            return attempted
        held = [report(attempt()) for _ in range(count)]
        held[0][1].close()  # the file object holds the socket open too
        held[0][0].close()
        # The daemon frees the slot when it reads the close: retry (bounded) until it has.
        for _ in range(200):
            again = attempt()
            if "too_many_connections_for_uid" not in again[2]:
                break
            time.sleep(0.01)
        report(again)
        """

    @Test(.enabled(if: PermissionTests.unavailableReason == nil, "\(PermissionTests.unavailableReason ?? "")"))
    func oneUserCannotTakeMoreThanItsConnections() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(limits: [("max_connections_per_uid", 3)], accessories: [s.lineAccessory("echo")])
        let child = try ChildRun(
            label: "4 connections as uid 65534",
            executable: PermissionTests.setpriv,
            arguments: [
                "--reuid=65534", "--regid=65534", "--clear-groups", PermissionTests.python, "-c",
                Self.connectionsScript, s.socketPath, "4",
            ],
            stdoutPath: s.directory.file("uid.out"),
            stderrPath: s.directory.file("uid.err")
        )
        let ended = child.wait(seconds: 20)
        if ended == nil { child.kill() }
        #expect(ended == .exited(0), "client: \(child.stderr)")
        let replies = try child.stdout.split(separator: "\n").map { line -> Response in
            guard case .response(let r) = try ServerMessage.decode(Array(line.utf8)) else {
                throw HarnessError("not a response: \(line)")
            }
            return r
        }
        try #require(replies.count == 5, "\(child.stdout)")
        for r in replies[0..<3] { #expect(r.result?["version"] != nil, "\(r)") }
        #expect(replies[3].code == -32000, "\(replies[3])")
        #expect(replies[3].error?.data?["reason"] == "too_many_connections_for_uid")
        #expect(replies[3].error?.message.contains("limits.max_connections_per_uid") == true)
        #expect(replies[4].result?["version"] != nil, "a closed connection gives its slot back: \(replies[4])")
        // Root is exempt: more connections than the per-uid limit.
        let roots = try (0..<5).map { _ in try s.connect() }
        for c in roots { #expect(try c.result("daemon.status")["version"] != nil) }
        for c in roots { c.close() }
    }
}
