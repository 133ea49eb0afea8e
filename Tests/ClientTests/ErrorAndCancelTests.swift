import AccessoryClient
import AccessoryTestSupport
import ControlProtocol
import JSONCodec
import SystemCalls
import Testing

/// The daemon's errors, raw lines, and cancellation.
///
/// Threading: each test runs on its own task with its own fake daemon.
@Suite struct ErrorAndCancelTests {
    @Test func rpcErrorsSurfaceWithTheirCodeMessageAndData() async throws {
        let daemon = try FakeDaemon { request, peer in
            switch request.method.device {
            case "ghost"?: peer.fail(request.id, RPCError(.unknownDevice, "no accessory named \"ghost\" is configured"))
            case "slow"?: peer.fail(request.id, RPCError(.timedOut, "no response within 500 ms"))
            default: peer.fail(request.id, RPCError(code: 4242, message: "from the future", data: ["hint": "upgrade"]))
            }
        }
        defer { daemon.stop() }
        let connection = try await AccessoryConnection.connect(socketPath: daemon.socketPath)
        defer { connection.close() }
        let ghost = await clientError { _ = try await connection.transact(device: "ghost", text: "AT") }
        #expect(ghost == .rpc(RPCError(.unknownDevice, "no accessory named \"ghost\" is configured")))
        #expect(ghost?.errorCode == .unknownDevice && ghost?.codeName == "unknown_device")
        let slow = await clientError { _ = try await connection.read(device: "slow") }
        #expect(slow?.errorCode == .timedOut)
        let future = await clientError { _ = try await connection.status(device: "other") }
        #expect(future == .rpc(RPCError(code: 4242, message: "from the future", data: ["hint": "upgrade"])))
        #expect(connection.isConnected, "an error response leaves the connection usable")
    }

    @Test func aResultOfTheWrongShapeFailsOnlyThatCall() async throws {
        let daemon = try FakeDaemon { request, peer in
            switch request.method {
            case .transact: peer.reply(request.id, JSONValue.object(["frames": 3]))
            default: peer.reply(request.id, JSONValue.object(["devices": []]))
            }
        }
        defer { daemon.stop() }
        let connection = try await AccessoryConnection.connect(socketPath: daemon.socketPath)
        defer { connection.close() }
        let error = await clientError { _ = try await connection.transact(device: "echo", text: "x") }
        #expect(error == .protocolError("the result needs a \"frames\" array"))
        #expect(try await connection.listDevices().isEmpty)
    }

    @Test func rawLinesGetTheDaemonsAnswerIncludingNullIDs() async throws {
        let daemon = try FakeDaemon { request, peer in peer.reply(request.id, JSONValue.object([:])) }
        defer { daemon.stop() }
        let connection = try await AccessoryConnection.connect(socketPath: daemon.socketPath)
        defer { connection.close() }
        let notJSON = try await bounded {
            try await connection.send(rawLine: Array("this is not json".utf8), awaitingResponseTo: nil)
        }
        #expect(notJSON.id == nil && notJSON.error?.errorCode == .parseError)
        let unknown = try await bounded {
            try await connection.send(
                rawLine: Array(#"{"jsonrpc":"2.0","id":"raw-1","method":"frobnicate"}"#.utf8),
                awaitingResponseTo: .string("raw-1")
            )
        }
        #expect(unknown.id == .string("raw-1") && unknown.error?.errorCode == .methodNotFound)
        let byName = await clientError { _ = try await connection.call(method: "frobnicate", params: ["x": 1]) }
        #expect(byName?.errorCode == .methodNotFound)
        try await connection.send(rawLine: Array(#"{"jsonrpc":"2.0","id":"raw-2","method":"daemon.status"}"#.utf8))
        #expect(await Wait.until { connection.unmatchedResponseCount == 1 })
    }

    @Test func cancellingACallsTaskSendsCancelAndEndsWithTheDaemonsAnswer() async throws {
        let daemon = try FakeDaemon { request, peer in
            if case .cancel(let params) = request.method {
                peer.reply(request.id, CancelResult(cancelled: true))
                peer.fail(params.id, RPCError(.cancelled, "cancelled by the client"))
            }
        }
        defer { daemon.stop() }
        let connection = try await AccessoryConnection.connect(socketPath: daemon.socketPath)
        defer { connection.close() }
        let call = Task { await clientError { _ = try await connection.transact(device: "modem", text: "ATD123") } }
        #expect(await Wait.until { !daemon.requests.isEmpty })
        call.cancel()
        let error = try await bounded { await call.value }
        #expect(error == .rpc(RPCError(.cancelled, "cancelled by the client")))
        let requests = daemon.requests
        #expect(requests.count == 2)
        if requests.count == 2 { #expect(requests[1].method == .cancel(CancelParams(id: requests[0].id))) }
    }

    @Test func aCallWhoseTaskIsAlreadyCancelledIsNeverSent() async throws {
        let daemon = try FakeDaemon { request, peer in peer.reply(request.id, JSONValue.object([:])) }
        defer { daemon.stop() }
        let connection = try await AccessoryConnection.connect(socketPath: daemon.socketPath)
        defer { connection.close() }
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await clientError { _ = try await connection.write(device: "modem", data: [1]) }
        }
        #expect(try await bounded { await call.value }?.errorCode == .cancelled)
        _ = try await connection.daemonStatus()
        #expect(daemon.requests.map(\.method) == [.daemonStatus])
    }

    @Test func cancelByRequestIDReachesTheDaemon() async throws {
        let daemon = try FakeDaemon { request, peer in
            if case .cancel(let params) = request.method {
                peer.reply(request.id, CancelResult(cancelled: true))
                peer.fail(params.id, RPCError(.cancelled))
            }
        }
        defer { daemon.stop() }
        let connection = try await AccessoryConnection.connect(socketPath: daemon.socketPath)
        defer { connection.close() }
        let id = connection.makeRequestID()
        let call = Task {
            await clientError {
                _ = try await connection.call(.read(ReadParams(device: "gps", timeoutMs: 60_000)), id: id)
            }
        }
        #expect(await Wait.until { daemon.requests.contains { $0.id == id } })
        #expect(try await connection.cancel(requestID: id) == CancelResult(cancelled: true))
        #expect(try await bounded { await call.value }?.errorCode == .cancelled)
        let duplicate = connection.makeRequestID()
        let held = Task { await clientError { _ = try await connection.call(.daemonStatus, id: duplicate) } }
        #expect(await Wait.until { daemon.requests.contains { $0.id == duplicate } })
        let clash = await clientError { _ = try await connection.call(.daemonStatus, id: duplicate) }
        guard case .protocolError? = clash else {
            Issue.record("reusing an id in flight must fail, got \(String(describing: clash))")
            return
        }
        connection.close()
        #expect(try await bounded { await held.value } == .disconnected)
    }
}
