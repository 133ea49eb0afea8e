import AccessoryClient
import AccessoryTestSupport
import ControlProtocol
import Glibc
import JSONCodec
import SystemCalls
import Testing

/// The daemon stops (SIGTERM, as `systemctl restart` sends it) and a new one starts on the same
/// socket path: a connection's call in flight fails with `daemonRestarted` and is not resent,
/// its subscription carries on, a call made in the gap is sent once the new daemon is up, a
/// lock held is reported lost; with `.never` the connection ends.
///
/// Threading: each test on its own task with its own daemon (stopped by pid).
@Suite(.enabled(if: RealDaemon.executable != nil, Comment(rawValue: RealDaemon.notBuilt)))
struct ReconnectTests {
    /// `slow` answers 1.5 s after each request (to be caught in flight), `echo` at once.
    static let accessories = [(name: "slow", simulate: "delay_ms: 1500"), (name: "echo", simulate: "")]

    @Test func theCallInFlightFailsAndTheSubscriptionCarriesOnAfterARestart() async throws {
        let daemon = try await RealDaemon(echoes: Self.accessories)
        defer { daemon.stop() }
        let connection = try await AccessoryConnection.connect(socketPath: daemon.socketPath)
        defer { connection.close() }
        try await connection.subscribe(device: "echo", events: [.data])
        let outcome = try await Self.haltWithACallInFlight(daemon, connection)
        #expect(throws: ClientError.daemonRestarted) { try outcome.get() }
        #expect(!connection.isConnected)

        // Made while no daemon runs: waits for the next one, then is sent.
        let gap = Task { () throws(ClientError) -> TransactResult in
            try await connection.transact(device: "echo", text: "made in the gap", wait: .seconds(10))
        }
        try await daemon.start()
        let answer = try await bounded(30) { try await gap.value }
        #expect(answer.frames == [Frame(Array("made in the gap".utf8))])

        // The subscription was sent again by the library: the new daemon's events arrive.
        let other = try await AccessoryConnection.connect(socketPath: daemon.socketPath, reconnect: .never)
        _ = try await other.write(device: "echo", data: Array("after the restart".utf8))
        let event = try await bounded(10) { () -> DeviceEvent? in
            for await event in connection.events { return event }
            return nil
        }
        #expect(event == .data(device: "echo", frame: Frame(Array("after the restart".utf8))))
        // The request in flight was not resent to the new daemon.
        let status = try await other.status(device: "slow")
        #expect(Self.framesOut(status) == 0, "\(status)")
        other.close()
    }

    @Test func aCallInFlightWhenTheDaemonIsKilledFailsAndIsNotResent() async throws {
        let daemon = try await RealDaemon(echoes: Self.accessories)
        defer { daemon.stop() }
        let connection = try await AccessoryConnection.connect(socketPath: daemon.socketPath)
        defer { connection.close() }
        // No answer at all: the socket just ends.
        let outcome = try await Self.haltWithACallInFlight(daemon, connection, signal: SIGKILL)
        #expect(throws: ClientError.daemonRestarted) { try outcome.get() }
        try await daemon.start()
        let answer = try await bounded(30) { try await connection.transact(device: "echo", text: "again") }
        #expect(answer.frames == [Frame(Array("again".utf8))])
        #expect(Self.framesOut(try await connection.status(device: "slow")) == 0, "the call in flight was resent")
    }

    @Test func aLockHeldIsReportedLostNotTakenAgain() async throws {
        let daemon = try await RealDaemon(echoes: Self.accessories)
        defer { daemon.stop() }
        let connection = try await AccessoryConnection.connect(socketPath: daemon.socketPath)
        defer { connection.close() }
        try await connection.lock(device: "echo")
        daemon.halt()
        try await daemon.start()
        await #expect(throws: ClientError.lockLost(device: "echo")) {
            _ = try await bounded(30) { try await connection.transact(device: "echo", text: "needs the lock") }
        }
        try await connection.unlock(device: "echo")  // forgets it: nothing to unlock on the new daemon
        let answer = try await bounded(30) { try await connection.transact(device: "echo", text: "on my own") }
        #expect(answer.frames == [Frame(Array("on my own".utf8))])
    }

    @Test func withoutReconnectingTheConnectionEnds() async throws {
        let daemon = try await RealDaemon(echoes: Self.accessories)
        defer { daemon.stop() }
        let connection = try await AccessoryConnection.connect(socketPath: daemon.socketPath, reconnect: .never)
        defer { connection.close() }
        try await connection.subscribe(device: "echo", events: [.data])
        let outcome = try await Self.haltWithACallInFlight(daemon, connection)
        #expect(throws: ClientError.daemonRestarted) { try outcome.get() }
        try await daemon.start()
        await #expect(throws: ClientError.disconnected) {
            _ = try await bounded(10) { try await connection.listDevices() }
        }
        let finished = try await bounded(10) { () -> Bool in
            for await _ in connection.events {}
            return true
        }
        #expect(finished)
    }

    /// Stops the daemon with `signal` while `connection` has a `transact` on `slow` in flight
    /// (written to the accessory, not yet answered); what that call ended with (bounded).
    static func haltWithACallInFlight(
        _ daemon: RealDaemon,
        _ connection: AccessoryConnection,
        signal: Int32 = SIGTERM
    ) async throws -> Result<TransactResult, any Error> {
        let inFlight = Task { () throws(ClientError) -> TransactResult in
            try await connection.transact(device: "slow", text: "in flight")
        }
        try await waitUntilStarted(daemon)
        daemon.halt(signal)
        return try await bounded(10) { await inFlight.result }
    }

    /// Waits (bounded) until `slow` has written the request in flight to its accessory.
    static func waitUntilStarted(_ daemon: RealDaemon) async throws {
        let observer = try await AccessoryConnection.connect(socketPath: daemon.socketPath, reconnect: .never)
        defer { observer.close() }
        for _ in 0..<1000 {
            if framesOut(try await observer.status(device: "slow")) > 0 { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw DaemonFailed("the request in flight never reached the accessory")
    }

    static func framesOut(_ status: JSONObject) -> Int {
        guard case .object(let counters)? = status["counters"], let n = counters["frames_out"]?.int64Value else {
            return -1
        }
        return Int(n)
    }
}
