import JSONCodec
import Testing

@testable import ControlProtocol

func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

@Suite("Responses, notifications and the client side")
struct ResponseEncodingTests {
    @Test("success responses, one line each, appended to a reused buffer")
    func success() {
        var buffer: [UInt8] = []
        ResponseEncoder.success(id: .int(42), result: WriteResult(written: 5), into: &buffer)
        ResponseEncoder.success(id: .string("a\"b"), result: JSONValue.object(["ok": true]), into: &buffer)
        #expect(
            text(buffer) == #"{"jsonrpc":"2.0","id":42,"result":{"written":5}}"# + "\n"
                + #"{"jsonrpc":"2.0","id":"a\"b","result":{"ok":true}}"# + "\n"
        )
    }

    @Test("transact result: data_base64 always, data only for valid UTF-8")
    func frames() {
        var buffer: [UInt8] = []
        let result = TransactResult(
            frames: [Frame(text: "+CSQ: 20,99"), Frame([0xFF, 0x00]), Frame(text: "OK\r")],
            elapsedMs: 12
        )
        ResponseEncoder.success(id: .int(1), result: result, into: &buffer)
        #expect(
            text(buffer)
                == #"{"jsonrpc":"2.0","id":1,"result":{"frames":[{"data_base64":"K0NTUTogMjAsOTk=","data":"+CSQ: 20,99"},"#
                + #"{"data_base64":"/wA="},{"data_base64":"T0sN","data":"OK\r"}],"elapsed_ms":12}}"# + "\n"
        )
        #expect(Frame([0xFF]).json == ["data_base64": "/w=="])
        #expect(Frame(text: "é").json == ["data_base64": "w6k=", "data": "é"])
    }

    @Test("a transact result made from its first frame apart equals, and encodes as, the one made from the array")
    func firstFrameApart() {
        let frames = [Frame(text: "+CSQ: 20,99"), Frame([0xFF, 0x00]), Frame(text: "OK\r")]
        for count in 1...frames.count {
            let apart = TransactResult(first: frames[0], more: Array(frames[1..<count]), elapsedMs: 9)
            let whole = TransactResult(frames: Array(frames[..<count]), elapsedMs: 9)
            #expect(apart == whole)
            #expect(apart.frames == Array(frames[..<count]))
            #expect(
                ResponseEncoder.successLine(id: .int(3), result: apart)
                    == ResponseEncoder.successLine(id: .int(3), result: whole)
            )
        }
        let none = TransactResult(frames: [], elapsedMs: 1)
        #expect(none.frames.isEmpty)
        #expect(
            text(ResponseEncoder.successLine(id: .int(2), result: none))
                == #"{"jsonrpc":"2.0","id":2,"result":{"frames":[],"elapsed_ms":1}}"# + "\n"
        )
    }

    @Test("a reply line written at its size bound equals the one appended, for frames of every kind and size")
    func boundedLines() throws {
        // Worst cases for the bound: every byte escaped six-fold (control bytes), the longest
        // ids, many frames, frames longer than a base64 chunk (768 bytes) and not UTF-8.
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let kinds: [(Int) -> [UInt8]] = [
            { n in Array(repeating: 0x01, count: n) },  // \u0001 each
            { n in Array(repeating: UInt8(ascii: "\""), count: n) },
            { n in (0..<n).map { _ in UInt8(next(256)) } },  // mostly not UTF-8
            { n in Array(String(repeating: "é€", count: n / 5 + 1).utf8.prefix(n)) },
            { n in Array(repeating: UInt8(ascii: "a"), count: n) },
        ]
        let ids: [RequestID] = [
            .int(0), .int(Int64.min), .int(Int64.max), .string(""), .string(String(repeating: "\u{1}", count: 40)),
        ]
        for round in 0..<300 {
            let frames = (0..<(1 + next(4))).map { _ in
                Frame(kinds[next(kinds.count)]([0, 1, 2, 3, 16, 767, 768, 769, 3000][next(9)]))
            }
            let id = ids[round % ids.count]
            for result in [
                TransactResult(frames: frames, elapsedMs: Int64(next(100_000))) as any JSONEncodable,
                ReadResult(frames: frames),
            ] {
                var appended: [UInt8] = []
                ResponseEncoder.success(id: id, result: result, into: &appended)
                let written = ResponseEncoder.successLine(id: id, result: result)
                #expect(written == appended, "round \(round)")
                #expect(try ServerMessage.decode(written[...]) == ServerMessage.decode(appended[...]))
            }
        }
        // A result without a bound takes the appending path.
        #expect(
            text(ResponseEncoder.successLine(id: .int(7), result: WriteResult(written: 3)))
                == #"{"jsonrpc":"2.0","id":7,"result":{"written":3}}"# + "\n"
        )
    }

    @Test("error responses with code, message and optional data")
    func errors() {
        var buffer: [UInt8] = []
        ResponseEncoder.failure(id: .int(3), error: RPCError(.timedOut), into: &buffer)
        ResponseEncoder.failure(
            id: nil,
            error: RPCError(.unknownDevice, "no accessory named \"x\"", data: ["device": "x"]),
            into: &buffer
        )
        #expect(
            text(buffer) == #"{"jsonrpc":"2.0","id":3,"error":{"code":1003,"message":"timed out"}}"# + "\n"
                + #"{"jsonrpc":"2.0","id":null,"error":{"code":1001,"message":"no accessory named \"x\"","data":{"device":"x"}}}"#
                + "\n"
        )
    }

    @Test("every error code has its number, name and a message")
    func codes() {
        let expected: [ErrorCode: Int] = [
            .parseError: -32700, .invalidRequest: -32600, .methodNotFound: -32601, .invalidParams: -32602,
            .internalError: -32603, .unknownDevice: 1001, .deviceUnavailable: 1002, .timedOut: 1003, .cancelled: 1004,
            .deviceRemoved: 1005, .permissionDenied: 1006, .queueFull: 1007, .ioError: 1008,
        ]
        #expect(ErrorCode.allCases.count == expected.count)
        for code in ErrorCode.allCases {
            #expect(code.rawValue == expected[code])
            #expect(!code.defaultMessage.isEmpty)
            #expect(RPCError(code).errorCode == code)
        }
        #expect(ErrorCode.deviceRemoved.name == "device_removed")
    }

    @Test("notifications: device.data and device.state")
    func notifications() throws {
        var buffer: [UInt8] = []
        ResponseEncoder.deviceData(device: "modem", frame: Array("RING".utf8), into: &buffer)
        #expect(
            text(buffer)
                == #"{"jsonrpc":"2.0","method":"device.data","params":{"device":"modem","data_base64":"UklORw==","data":"RING"}}"#
                + "\n"
        )
        buffer.removeAll(keepingCapacity: true)
        ResponseEncoder.deviceData(device: "slip", frame: [0xC0, 0xDB][...], into: &buffer)
        #expect(text(buffer).contains(#""params":{"device":"slip","data_base64":"wNs="}}"#))
        buffer.removeAll(keepingCapacity: true)
        ResponseEncoder.deviceState(device: "gps", state: .absent, reason: "device removed", into: &buffer)
        #expect(
            text(buffer)
                == #"{"jsonrpc":"2.0","method":"device.state","params":{"device":"gps","state":"absent","reason":"device removed"}}"#
                + "\n"
        )
    }

    @Test("client: decodes what the daemon encodes")
    func clientDecoding() throws {
        var buffer: [UInt8] = []
        let result = TransactResult(frames: [Frame(text: "OK"), Frame([0xFF])], elapsedMs: 4)
        ResponseEncoder.success(id: .int(8), result: result, into: &buffer)
        guard case .response(let response) = try ServerMessage.decode(buffer.dropLast()) else {
            Issue.record("not a response")
            return
        }
        #expect(response.id == .int(8))
        #expect(try TransactResult(json: try #require(response.result)) == result)

        buffer.removeAll()
        ResponseEncoder.failure(id: .string("q"), error: RPCError(.queueFull, data: ["depth": 64]), into: &buffer)
        guard case .response(let failed) = try ServerMessage.decode(buffer) else {
            Issue.record("not a response")
            return
        }
        #expect(failed.id == .string("q"))
        #expect(failed.error == RPCError(.queueFull, data: ["depth": 64]))
        #expect(failed.error?.errorCode == .queueFull)

        buffer.removeAll()
        ResponseEncoder.deviceData(device: "gps", frame: Array("$GPGGA".utf8), into: &buffer)
        guard case .notification(let data) = try ServerMessage.decode(buffer) else {
            Issue.record("not a notification")
            return
        }
        #expect(try data.event() == .data(device: "gps", frame: Frame(text: "$GPGGA")))

        buffer.removeAll()
        ResponseEncoder.deviceState(device: "gps", state: .ready, reason: "opened", into: &buffer)
        guard case .notification(let state) = try ServerMessage.decode(buffer) else {
            Issue.record("not a notification")
            return
        }
        #expect(try state.event() == .state(device: "gps", state: .ready, reason: "opened"))
    }

    @Test("client: typed results round-trip")
    func results() throws {
        func roundTrip<T: JSONEncodable>(_ value: T) throws -> JSONValue {
            var buffer: [UInt8] = []
            value.encodeJSON(into: &buffer)
            return try JSONParser.parse(buffer)
        }
        let list = DevicesListResult(devices: [
            DeviceSummary(name: "echo", state: .ready, transport: "simulated", path: "/dev/pts/3", queueDepth: 0),
            DeviceSummary(name: "gps", state: .absent, transport: "serial", path: nil, queueDepth: 2),
        ])
        #expect(try DevicesListResult(json: roundTrip(list)) == list)
        #expect(
            try ReadResult(json: roundTrip(ReadResult(frames: [Frame([1, 2])]))) == ReadResult(frames: [Frame([1, 2])])
        )
        #expect(try WriteResult(json: roundTrip(WriteResult(written: 9))) == WriteResult(written: 9))
        #expect(try CancelResult(json: roundTrip(CancelResult(cancelled: true))) == CancelResult(cancelled: true))
    }

    @Test(
        "client: malformed daemon lines are errors, not crashes",
        arguments: [
            "", "[]", #"{"id":1,"result":1}"#, #"{"jsonrpc":"2.0","result":1}"#,
            #"{"jsonrpc":"2.0","id":1}"#, #"{"jsonrpc":"2.0","id":1,"result":1,"error":{}}"#,
            #"{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}"#,
            #"{"jsonrpc":"2.0","id":1,"error":{"code":1}}"#, #"{"jsonrpc":"2.0","id":1.5,"result":1}"#,
            #"{"jsonrpc":"2.0","method":"device.data","params":5}"#,
        ]
    )
    func malformed(line: String) {
        #expect(throws: MessageDecodingError.self) { try ServerMessage.decode(Array(line.utf8)) }
    }

    @Test("client: bad frames and events are reported")
    func badFrames() throws {
        #expect(throws: MessageDecodingError.self) { try Frame(json: ["data": "x"]) }
        #expect(throws: MessageDecodingError.self) { try Frame(json: ["data_base64": "!!!!"]) }
        #expect(throws: MessageDecodingError.self) { try Frame(json: ["data_base64": "eA==", "data": "y"]) }
        let unknownState = NotificationMessage(
            method: "device.state",
            params: ["device": "x", "state": "exploded", "reason": ""]
        )
        #expect(throws: MessageDecodingError.self) { try unknownState.event() }
        #expect(try NotificationMessage(method: "future.thing", params: [:]).event() == nil)
    }
}
