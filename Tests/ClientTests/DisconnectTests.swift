import AccessoryClient
import AccessoryTestSupport
import ControlProtocol
import SystemCalls
import Testing

/// The connection ending: the daemon hanging up, stopping, or the client closing. (What a
/// reconnecting connection does next: ReconnectTests, against a real daemon.)
///
/// Threading: each test runs on its own task with its own fake daemon.
@Suite struct DisconnectTests {
    /// Calls in flight fail with `daemonRestarted`; without reconnecting, later calls fail with
    /// `disconnected` and the events finish.
    @Test func theDaemonHangingUpFailsEveryPendingCallPromptly() async throws {
        let seen = Locked(0)
        let daemon = try FakeDaemon { _, peer in
            if seen.withLock({ count -> Bool in
                count += 1
                return count == 3
            }) {
                peer.close()
            }
        }
        defer { daemon.stop() }
        let connection = try await AccessoryConnection.connect(socketPath: daemon.socketPath, reconnect: .never)
        let start = ContinuousClock.now
        let errors = try await bounded(10) {
            await withTaskGroup(of: ClientError?.self) { group in
                for index in 0..<3 {
                    group.addTask {
                        await clientError { _ = try await connection.transact(device: "modem", text: "AT\(index)") }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(errors == [.daemonRestarted, .daemonRestarted, .daemonRestarted])
        // Milliseconds in practice. Under ThreadSanitizer with every test in parallel on two cores,
        // scheduling alone can take seconds, so there only the bound above applies.
        if !Sanitizers.threadSanitizerIsActive { #expect(ContinuousClock.now - start < .seconds(2)) }
        #expect(!connection.isConnected)
        #expect(await clientError { _ = try await connection.listDevices() } == .disconnected)
        let leftover = try await bounded { await connection.events.first { _ in true } }
        #expect(leftover == nil, "events finishes when the connection ends")
    }

    @Test func theDaemonStoppingFailsAPendingCall() async throws {
        let received = Locked(false)
        let daemon = try FakeDaemon { _, _ in received.withLock { $0 = true } }
        let connection = try await AccessoryConnection.connect(socketPath: daemon.socketPath)
        let call = Task { await clientError { _ = try await connection.daemonStatus() } }
        #expect(await Wait.until { received.withLock { $0 } })
        daemon.stop()
        #expect(try await bounded(5) { await call.value } == .daemonRestarted)
    }

    @Test func closeFailsPendingCallsAndLaterOnes() async throws {
        let received = Locked(false)
        let daemon = try FakeDaemon { _, _ in received.withLock { $0 = true } }
        defer { daemon.stop() }
        let connection = try await AccessoryConnection.connect(socketPath: daemon.socketPath)
        let call = Task { await clientError { _ = try await connection.read(device: "gps") } }
        #expect(await Wait.until { received.withLock { $0 } })
        connection.close()
        connection.close()
        #expect(try await bounded(5) { await call.value } == .disconnected)
        #expect(await clientError { try await connection.unlock(device: "gps") } == .disconnected)
        #expect(await clientError { try await connection.send(rawLine: Array("{}".utf8)) } == .disconnected)
    }

    @Test func aLineThatIsNotJSONFromTheDaemonIsAProtocolErrorAndEndsTheConnection() async throws {
        let daemon = try FakeDaemon { _, peer in peer.send(Array("HTTP/1.1 400 Bad Request\n".utf8)) }
        defer { daemon.stop() }
        let connection = try await AccessoryConnection.connect(socketPath: daemon.socketPath)
        defer { connection.close() }
        let error = try await bounded { await clientError { _ = try await connection.daemonStatus() } }
        guard case .protocolError(let message)? = error else {
            Issue.record("expected a protocol error, got \(String(describing: error))")
            return
        }
        #expect(message.contains("not JSON"))
        #expect(!connection.isConnected)
    }
}
