import AccessoryClient
import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// Connecting: the errors a person sees when the daemon is not there.
///
/// Threading: each test runs on its own task.
@Suite struct ConnectTests {
    @Test func noSocketFileMeansTheDaemonIsNotRunning() async throws {
        let folder = try TestFolder()
        defer { folder.remove() }
        let path = folder.file("accessoryd.sock")
        let error = await clientError { _ = try await AccessoryConnection.connect(socketPath: path) }
        #expect(error == .daemonNotRunning(path: path, socketFileExists: false))
        #expect(error?.description == "accessoryd is not running (no socket at \(path))")
        #expect(error?.codeName == "daemon_not_running")
    }

    @Test func aStaleSocketFileWithNothingListeningMeansTheDaemonIsNotRunning() async throws {
        let folder = try TestFolder()
        defer { folder.remove() }
        let path = folder.file("accessoryd.sock")
        let socket = try Socket.socket(domain: AF_UNIX, type: CInt(SOCK_STREAM.rawValue))
        try Socket.bind(socket.rawValue, .path(path))
        try Socket.listen(socket.rawValue)
        socket.close()  // the file stays, as after a crash
        let error = await clientError { _ = try await AccessoryConnection.connect(socketPath: path) }
        #expect(error == .daemonNotRunning(path: path, socketFileExists: true))
        #expect(error?.description.hasPrefix("accessoryd is not running (nothing is listening on \(path)") == true)
    }

    @Test func aPathTooLongForAUnixSocketIsExplained() async throws {
        let path = "/tmp/" + String(repeating: "x", count: 200) + ".sock"
        let error = await clientError { _ = try await AccessoryConnection.connect(socketPath: path) }
        guard case .connectionFailed(let failedPath, let reason)? = error else {
            Issue.record("expected connectionFailed, got \(String(describing: error))")
            return
        }
        #expect(failedPath == path)
        #expect(reason.contains("too long"))
    }

    @Test func theDefaultSocketPathFollowsTheRuleEveryClientShares() {
        let expected = DaemonPaths.clientSocket(
            explicit: nil,
            environment: { getenv($0).map { String(cString: $0) } },
            uid: geteuid(),
            exists: { access($0, F_OK) == 0 }
        )
        #expect(AccessoryConnection.defaultSocketPath == expected)
    }

    @Test func errorDescriptionsArePlainSentences() {
        #expect(ClientError.disconnected.description == "the connection to accessoryd was closed")
        #expect(
            ClientError.permissionDenied(path: "/p").description.hasPrefix(
                "permission denied connecting to accessoryd at /p"
            )
        )
        #expect(
            ClientError.rpc(RPCError(.timedOut, "no answer within 500 ms")).description == "no answer within 500 ms"
        )
        #expect(ClientError.rpc(RPCError(code: 4242, message: "new")).codeName == "error_4242")
        #expect(ClientError.protocolError("x").codeName == "protocol_error")
    }
}
