import AccessoryClient
import ControlProtocol
import JSONCodec
import SystemCalls
import Testing

/// The typed methods send the protocol's params and decode its results.
///
/// Threading: each test runs on its own task with its own fake daemon.
@Suite struct MethodTests {
    /// Answers each method with a result of the protocol's shape.
    static func answer(_ request: Request, _ peer: FakePeer) {
        switch request.method {
        case .devicesList:
            peer.reply(
                request.id,
                DevicesListResult(devices: [
                    DeviceSummary(
                        name: "echo",
                        state: .ready,
                        transport: "simulated",
                        path: "/dev/pts/3",
                        queueDepth: 0
                    ),
                    DeviceSummary(name: "gps", state: .absent, transport: "serial", path: nil, queueDepth: 2),
                ])
            )
        case .deviceStatus(let params):
            peer.reply(request.id, JSONValue.object(["name": .string(params.device), "state": "ready"]))
        case .daemonStatus:
            peer.reply(request.id, JSONValue.object(["version": "0.1.0", "clients": 1]))
        case .transact(let params):
            peer.reply(request.id, TransactResult(frames: [Frame(params.data), Frame(text: "OK")], elapsedMs: 7))
        case .write(let params):
            peer.reply(request.id, WriteResult(written: Int64(params.data.count + 1)))
        case .read:
            peer.reply(request.id, ReadResult(frames: [Frame(text: "$GPGGA")]))
        case .lock:
            peer.reply(request.id, JSONValue.object(["locked": true]))
        case .cancel:
            peer.reply(request.id, CancelResult(cancelled: false))
        case .subscribe, .unsubscribe, .unlock, .attach:
            peer.reply(request.id, JSONValue.object([:]))
        case .control(let params):
            // The lines as the request left them: what `accessoryctl line` prints back.
            let steps = params.sequence
            let dtr = steps.last(where: { $0.dtr != nil })?.dtr ?? params.dtr ?? false
            let rts = steps.last(where: { $0.rts != nil })?.rts ?? params.rts ?? false
            peer.reply(
                request.id,
                JSONValue.object([
                    "device": .string(params.device),
                    "lines": .object([
                        "dtr": .bool(dtr), "rts": .bool(rts), "cts": true, "dsr": false, "dcd": false, "ri": false,
                    ]),
                ])
            )
        case .clientsList:
            let client: JSONObject = [
                "id": 3, "pid": 4121, "uid": 1000, "user": "ann", "command": "minicom", "connected_since_ms": 0,
                "locks": .array(["modem"]), "attached": nil, "subscribed": .array([]), "requests_in_flight": 2,
            ]
            peer.reply(request.id, JSONValue.object(["clients": .array([.object(client)])]))
        case .clientDisconnect(let params):
            peer.reply(request.id, JSONValue.object(["disconnected": true, "id": .integer(Int64(params.id))]))
        }
    }

    @Test func eachMethodSendsItsParamsAndDecodesItsResult() async throws {
        let daemon = try FakeDaemon(script: Self.answer)
        defer { daemon.stop() }
        let connection = try await AccessoryConnection.connect(socketPath: daemon.socketPath)
        defer { connection.close() }

        let devices = try await connection.listDevices()
        #expect(devices.map(\.name) == ["echo", "gps"] && devices[1].path == nil && devices[1].queueDepth == 2)
        #expect(try await connection.status(device: "echo")["state"] == "ready")
        #expect(try await connection.daemonStatus()["version"] == "0.1.0")
        let transact = try await connection.transact(
            device: "modem",
            data: [0x41, 0x54],
            timeout: .microseconds(1500),
            wait: .zero
        )
        #expect(transact == TransactResult(frames: [Frame(text: "AT"), Frame(text: "OK")], elapsedMs: 7))
        #expect(try await connection.write(device: "modem", data: [0xFF], timeout: .seconds(2)).written == 2)
        #expect(try await connection.read(device: "gps", timeout: .milliseconds(100), maxFrames: 3).frames.count == 1)
        try await connection.subscribe(device: "gps", events: [.data])
        try await connection.unsubscribe()
        #expect(
            try await connection.lock(device: "modem", timeout: .seconds(1), lease: .seconds(5)) == ["locked": true]
        )
        try await connection.unlock(device: "modem")
        #expect(try await connection.cancel(requestID: .int(99)) == CancelResult(cancelled: false))

        let expected: [ControlProtocol.Method] = [
            .devicesList,
            .deviceStatus(DeviceParams(device: "echo")),
            .daemonStatus,
            .transact(TransferParams(device: "modem", data: [0x41, 0x54], timeoutMs: 2, waitMs: 0)),
            .write(TransferParams(device: "modem", data: [0xFF], timeoutMs: 2000)),
            .read(ReadParams(device: "gps", timeoutMs: 100, maxFrames: 3)),
            .subscribe(SubscriptionParams(device: "gps", events: [.data])),
            .unsubscribe(SubscriptionParams()),
            .lock(LockParams(device: "modem", timeoutMs: 1000, leaseMs: 5000)),
            .unlock(DeviceParams(device: "modem")),
            .cancel(CancelParams(id: .int(99))),
        ]
        let requests = daemon.requests
        #expect(requests.map(\.method) == expected)
        #expect(Set(requests.map(\.id)).count == requests.count, "ids are never reused")
    }

    @Test func twoConnectionsAreIndependent() async throws {
        let daemon = try FakeDaemon(script: Self.answer)
        defer { daemon.stop() }
        let first = try await AccessoryConnection.connect(socketPath: daemon.socketPath)
        let second = try await AccessoryConnection.connect(socketPath: daemon.socketPath)
        defer { second.close() }
        first.close()
        #expect(try await second.listDevices().count == 2)
        #expect(daemon.connectionCount == 2)
    }
}
