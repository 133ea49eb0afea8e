import AccessoryTestSupport
import ControlProtocol
import Glibc
import JSONCodec
import SystemCalls
import Testing

/// `accessoryctl monitor`: live events until a count, a duration, a signal or a hang-up.
///
/// Threading: each test runs on its own task with its own fake daemon and child process.
@Suite(.enabled(if: CtlProcess.executable != nil, Comment(rawValue: CtlProcess.notBuilt)))
struct CtlMonitorTests {
    /// Answers `subscribe`, then sends three events (and a fourth that `--count 3` must not print).
    static func chatty(_ request: Request, _ peer: FakePeer) {
        guard case .subscribe = request.method else { return }
        peer.reply(request.id, JSONValue.object([:]))
        peer.notifyData("gps", Array("$GPGGA,1".utf8))
        peer.notifyState("modem", .absent, "unplugged")
        peer.notifyData("raw", [0xFF, 0x00])
        peer.notifyData("gps", Array("$GPGGA,2".utf8))
    }

    @Test func monitorPrintsEventsUntilTheCount() async throws {
        let daemon = try FakeDaemon(script: Self.chatty)
        defer { daemon.stop() }
        let run = try await CtlProcess.run(["monitor", "--socket", daemon.socketPath, "--count", "3"])
        #expect(run.status == 0, "\(run)")
        #expect(
            run.stdoutLines == [
                "gps: $GPGGA,1",
                "modem: state absent (unplugged)",
                "raw: (2 bytes)",
                "  00000000  ff 00" + String(repeating: " ", count: 45) + "|..|",
            ]
        )
        #expect(daemon.requests.map(\.method) == [.subscribe(SubscriptionParams())])
    }

    @Test func monitorJSONPrintsTheNotificationLinesForOneDeviceAndKind() async throws {
        let daemon = try FakeDaemon(script: Self.chatty)
        defer { daemon.stop() }
        let run = try await CtlProcess.run([
            "monitor", "gps", "--event", "data", "--json", "--count", "1", "--socket", daemon.socketPath,
        ])
        #expect(run.status == 0, "\(run)")
        #expect(
            run.stdoutLines == [
                #"{"jsonrpc":"2.0","method":"device.data","params":{"device":"gps","data_base64":"JEdQR0dBLDE=","data":"$GPGGA,1"}}"#
            ]
        )
        #expect(daemon.requests.map(\.method) == [.subscribe(SubscriptionParams(device: "gps", events: [.data]))])
    }

    @Test func monitorStopsCleanlyOnSIGTERMAndAfterItsDuration() async throws {
        let daemon = try FakeDaemon { request, peer in peer.reply(request.id, JSONValue.object([:])) }
        defer { daemon.stop() }
        let signalled = try await CtlProcess.run(["monitor", "--socket", daemon.socketPath]) { pid in
            _ = await Wait.until { daemon.requests.count == 1 }
            try? ChildProcess.signal(pid, SIGTERM)
        }
        #expect(signalled.status == 0, "\(signalled)")
        let start = MonotonicClock.nowNanoseconds()
        let timed = try await CtlProcess.run(["monitor", "--socket", daemon.socketPath, "--duration", "200"])
        #expect(timed.status == 0, "\(timed)")
        #expect(MonotonicClock.nowNanoseconds() - start >= 200_000_000)
    }

    @Test func monitorExitsWith1WhenTheDaemonGoesAway() async throws {
        let daemon = try FakeDaemon { request, peer in
            peer.reply(request.id, JSONValue.object([:]))
            peer.close()
        }
        defer { daemon.stop() }
        let run = try await CtlProcess.run(["monitor", "--socket", daemon.socketPath])
        #expect(run.status == 1 && run.stderr == "error: accessoryd closed the connection (disconnected)\n", "\(run)")
    }
}
