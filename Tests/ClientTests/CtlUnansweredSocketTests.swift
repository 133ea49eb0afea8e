import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// `accessoryctl` against a socket that takes connections while no daemon serves them (a systemd
/// socket unit whose daemon fails to start): it says so within seconds instead of waiting
/// forever; and a daemon that is alive but slow to answer one request is never cut off.
///
/// Threading: each test on its own task, with its own socket and child process.
@Suite(.enabled(if: CtlProcess.executable != nil, Comment(rawValue: CtlProcess.notBuilt)))
struct CtlUnansweredSocketTests {
    @Test func aSocketNobodyAcceptsOnIsReportedWithin10Seconds() async throws {
        let folder = try TestFolder()
        defer { folder.remove() }
        let path = folder.file("accessoryd.sock")
        // Listening, never accepting: the connection waits in the queue, as under a socket unit.
        let listening = try Socket.socket(domain: AF_UNIX, type: CInt(SOCK_STREAM.rawValue))
        try Socket.bind(listening.rawValue, .path(path))
        try Socket.listen(listening.rawValue)
        let started = ContinuousClock.now
        let run = try await CtlProcess.run(["list", "--socket", path], seconds: 30)
        let took = ContinuousClock.now - started
        listening.close()
        #expect(run.status == 3, "\(run)")
        #expect(run.stderr.hasPrefix("error: no daemon answers on \(path): it accepts connections"), "\(run)")
        #expect(run.stderr.contains("systemctl status accessoryd"), "\(run)")
        #expect(took < .seconds(10), "it took \(took) to give up")
    }

    @Test func aDaemonSlowToAnswerOneRequestIsWaitedFor() async throws {
        // The transaction's answer comes after 8 s; daemon.status (the watch's probe) at once.
        let daemon = try FakeDaemon { request, peer in
            if case .transact(let params) = request.method {
                var line: [UInt8] = []
                ResponseEncoder.success(
                    id: request.id,
                    result: TransactResult(frames: [Frame(params.data)], elapsedMs: 8000),
                    into: &line
                )
                peer.send(line, after: .seconds(8))
            } else {
                MethodTests.answer(request, peer)
            }
        }
        defer { daemon.stop() }
        let run = try await CtlProcess.run(["transact", "--socket", daemon.socketPath, "echo", "late"], seconds: 30)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("late"), "\(run)")
    }
}
