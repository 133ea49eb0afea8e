import AccessoryClient
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
        let run = try await CtlProcess.run(["monitor", "--no-reconnect", "--socket", daemon.socketPath])
        #expect(run.status == 1 && run.stderr == "error: accessoryd closed the connection (disconnected)\n", "\(run)")
    }

    /// A real daemon stopped with SIGTERM and started again on the same socket: monitor says so
    /// on standard error, subscribes again by itself and prints the new daemon's events.
    @Test(.enabled(if: RealDaemon.executable != nil, Comment(rawValue: RealDaemon.notBuilt)))
    func monitorCarriesOnAcrossADaemonRestart() async throws {
        let daemon = try await RealDaemon(echoes: [(name: "echo", simulate: "")])
        defer { daemon.stop() }
        let path = daemon.socketPath
        let run = try await CtlProcess.run(
            ["monitor", "echo", "--event", "data", "--count", "2", "--socket", path],
            seconds: 60
        ) { _ in
            do {
                try await Self.writeOnceSubscribed("before", socket: path)
                daemon.halt()
                try await daemon.start()
                try await Self.writeOnceSubscribed("after", socket: path)
            } catch {
                Issue.record("\(error)")
            }
        }
        #expect(run.status == 0, "\(run)")
        #expect(run.stdoutLines == ["echo: before", "echo: after"], "\(run)")
        #expect(
            run.stderr
                == "accessoryctl: accessoryd went away; reconnecting\naccessoryctl: reconnected to accessoryd; carrying on\n",
            "\(run)"
        )
    }

    /// Waits (bounded) until another client of the daemon at `socket` subscribes, writes `text`
    /// to `echo`, and waits until the daemon has sent its echo to the subscribers (this
    /// connection's own subscription sees it).
    static func writeOnceSubscribed(_ text: String, socket: String) async throws {
        let writer = try await AccessoryConnection.connect(socketPath: socket, reconnect: .never)
        defer { writer.close() }
        try await writer.subscribe(device: "echo", events: [.data])
        for _ in 0..<2000 {
            let clients = try await writer.call(method: "clients.list").objectValue?["clients"]?.arrayValue ?? []
            let subscribed = clients.filter { !($0.objectValue?["subscribed"]?.arrayValue?.isEmpty ?? true) }
            if subscribed.count >= 2 {
                _ = try await writer.write(device: "echo", data: Array(text.utf8))
                let echoed = try await bounded(10) { () -> DeviceEvent? in
                    for await event in writer.events { return event }
                    return nil
                }
                guard echoed == .data(device: "echo", frame: Frame(Array(text.utf8))) else {
                    throw DaemonFailed("the echo of \(text) never came: \(String(describing: echoed))")
                }
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw DaemonFailed("monitor never subscribed")
    }
}
