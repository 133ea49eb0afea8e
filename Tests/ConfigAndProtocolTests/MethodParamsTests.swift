import ControlProtocol
import Testing

/// A request line for `method` with `params` (raw JSON text).
func line(_ method: String, _ params: String? = nil, id: Int = 1) -> String {
    let paramsPart = params.map { #","params":"# + $0 } ?? ""
    return #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)""# + paramsPart + "}"
}

func method(_ name: String, _ params: String? = nil) throws -> Method {
    try Request.decode(Array(line(name, params).utf8)).method
}

/// The -32602 message for `params`, or nil (with an issue) if accepted.
func invalidParams(_ name: String, _ params: String) -> String? {
    guard let rejected = rejection(line(name, params)) else { return nil }
    #expect(rejected.error.code == -32602, "\(rejected)")
    #expect(rejected.id == .int(1))
    return rejected.error.message
}

@Suite("Typed params for every method")
struct MethodParamsTests {
    @Test("devices.list and daemon.status take no params")
    func noParams() throws {
        #expect(try method("devices.list") == .devicesList)
        #expect(try method("daemon.status", "{}") == .daemonStatus)
        #expect(invalidParams("devices.list", #"{"device":"x"}"#) == "devices.list takes no params (got params.device)")
    }

    @Test("device.status and unlock: {device}")
    func deviceParams() throws {
        #expect(try method("device.status", #"{"device":"gps"}"#) == .deviceStatus(DeviceParams(device: "gps")))
        #expect(try method("unlock", #"{"device":"gps"}"#) == .unlock(DeviceParams(device: "gps")))
        #expect(invalidParams("device.status", "{}") == "params.device is required")
        #expect(invalidParams("unlock", #"{"device":null}"#) == "params.device is required")
        #expect(invalidParams("device.status", #"{"device":""}"#)?.contains("must be an accessory name") == true)
        #expect(invalidParams("device.status", #"{"device":3}"#)?.contains("(got 3)") == true)
        #expect(
            invalidParams("device.status", #"{"devcie":"gps"}"#)?.contains(
                #"unknown parameter params.devcie for device.status (did you mean "device"?)"#
            ) == true
        )
    }

    @Test("transact and write: data or data_base64, timeout_ms, wait_ms")
    func transfer() throws {
        #expect(
            try method("transact", #"{"device":"m","data":"AT\r","timeout_ms":500,"wait_ms":0}"#)
                == .transact(TransferParams(device: "m", data: Array("AT\r".utf8), timeoutMs: 500, waitMs: 0))
        )
        #expect(
            try method("write", #"{"device":"m","data_base64":"AP8B"}"#)
                == .write(TransferParams(device: "m", data: [0x00, 0xFF, 0x01]))
        )
        #expect(try method("write", #"{"device":"m","data":""}"#) == .write(TransferParams(device: "m", data: [])))
        #expect(
            try method("write", #"{"device":"m","data":"\u0000é"}"#)
                == .write(TransferParams(device: "m", data: [0, 0xC3, 0xA9]))
        )
        #expect(
            try method("transact", #"{"device":"m","data":"x","timeout_ms":null}"#)
                == .transact(TransferParams(device: "m", data: [0x78]))
        )
    }

    @Test(
        "transact/write param errors",
        arguments: [
            (#"{"device":"m"}"#, "params.data (text) or params.data_base64 is required"),
            (#"{"data":"x"}"#, "params.device is required"),
            (
                #"{"device":"m","data":"x","data_base64":"eA=="}"#,
                "give either params.data (text) or params.data_base64, not both"
            ),
            (
                #"{"device":"m","data":5}"#,
                "params.data must be a string (got 5); send binary payloads as params.data_base64"
            ),
            (#"{"device":"m","data":["a"]}"#, "params.data must be a string (got an array)"),
            (
                #"{"device":"m","data_base64":"eA="}"#,
                "params.data_base64 is not valid base64: length 3 is not a multiple of 4"
            ),
            (
                #"{"device":"m","data_base64":"e!=="}"#,
                "params.data_base64 is not valid base64: invalid character '!' at offset 1"
            ),
            (#"{"device":"m","data_base64":7}"#, "params.data_base64 must be a base64 string (got 7)"),
            (
                #"{"device":"m","data":"x","timeout_ms":"abc"}"#,
                #"params.timeout_ms must be a positive integer (milliseconds) (got "abc")"#
            ),
            (
                #"{"device":"m","data":"x","timeout_ms":0}"#,
                "params.timeout_ms must be a positive integer (milliseconds) (got 0)"
            ),
            (#"{"device":"m","data":"x","timeout_ms":-5}"#, "(got -5)"),
            (#"{"device":"m","data":"x","timeout_ms":1.5}"#, "(got 1.5)"),
            (#"{"device":"m","data":"x","timeout_ms":100.0}"#, "(got 100.0)"),
            (
                #"{"device":"m","data":"x","timeout_ms":86400001}"#,
                "params.timeout_ms must be at most 86400000 (got 86400001)"
            ),
            (
                #"{"device":"m","data":"x","timeout_ms":18446744073709551616}"#,
                "no greater than 86400000 (got 18446744073709551616)"
            ),
            (#"{"device":"m","data":"x","timeout_ms":1e400}"#, "no greater than 86400000 (got 1e400)"),
            (
                #"{"device":"m","data":"x","timeout_ms":-1e400}"#,
                "must be a positive integer (milliseconds) (got -1e400)"
            ),
            (
                #"{"device":"m","data":"x","wait_ms":-1}"#,
                "params.wait_ms must be a non-negative integer (milliseconds) (got -1)"
            ),
            (
                #"{"device":"m","data":"x","timeout":5}"#,
                #"unknown parameter params.timeout for transact (did you mean "timeout_ms"?)"#
            ),
            (#"{"device":"m","data":"x","extra":true}"#, "accepted: device, data, data_base64, timeout_ms, wait_ms"),
            ("[]", "by-position params are not supported"),
        ]
    )
    func transferErrors(params: String, message: String) {
        let got = invalidParams("transact", params)
        #expect(got?.contains(message) == true, "\(params): \(got ?? "accepted")")
    }

    @Test("read: timeout_ms, max_frames")
    func read() throws {
        #expect(try method("read", #"{"device":"gps"}"#) == .read(ReadParams(device: "gps")))
        #expect(
            try method("read", #"{"device":"gps","timeout_ms":100,"max_frames":3}"#)
                == .read(ReadParams(device: "gps", timeoutMs: 100, maxFrames: 3))
        )
        #expect(
            invalidParams("read", #"{"device":"gps","max_frames":0}"#)
                == "params.max_frames must be a positive integer (got 0)"
        )
        #expect(
            invalidParams("read", #"{"device":"gps","max_frames":70000}"#)
                == "params.max_frames must be at most 65536 (got 70000)"
        )
        #expect(
            invalidParams("read", #"{"device":"gps","data":"x"}"#)?.contains("unknown parameter params.data for read")
                == true
        )
    }

    @Test("subscribe and unsubscribe: device?, events?")
    func subscription() throws {
        #expect(try method("subscribe") == .subscribe(SubscriptionParams()))
        #expect(try method("subscribe", #"{"device":"gps"}"#) == .subscribe(SubscriptionParams(device: "gps")))
        #expect(
            try method("unsubscribe", #"{"events":["state","data","state"]}"#)
                == .unsubscribe(SubscriptionParams(events: [.data, .state]))
        )
        #expect(
            invalidParams("subscribe", #"{"events":[]}"#)
                == "params.events must not be empty (omit it for data and state)"
        )
        #expect(
            invalidParams("subscribe", #"{"events":"data"}"#)?.contains(
                #"params.events must be an array of "data", "state", "traffic" or "lines" (got "data")"#
            ) == true
        )
        #expect(
            invalidParams("subscribe", #"{"events":["data","nope"]}"#)
                == #"params.events[1] must be "data", "state", "traffic" or "lines" (got "nope")"#
        )
        #expect(
            invalidParams("subscribe", #"{"device":7}"#)?.contains("params.device must be an accessory name") == true
        )
    }

    @Test("lock: timeout_ms, lease_ms")
    func lock() throws {
        #expect(
            try method("lock", #"{"device":"m","timeout_ms":10,"lease_ms":30000}"#)
                == .lock(LockParams(device: "m", timeoutMs: 10, leaseMs: 30000))
        )
        #expect(
            invalidParams("lock", #"{"device":"m","lease_ms":0}"#)
                == "params.lease_ms must be a positive integer (milliseconds) (got 0)"
        )
        #expect(invalidParams("lock", #"{"device":"m","lease":5}"#)?.contains(#"did you mean "lease_ms"?"#) == true)
    }

    @Test("cancel: id (integer or string)")
    func cancel() throws {
        #expect(try method("cancel", #"{"id":41}"#) == .cancel(CancelParams(id: .int(41))))
        #expect(try method("cancel", #"{"id":"req-1"}"#) == .cancel(CancelParams(id: .string("req-1"))))
        #expect(invalidParams("cancel", "{}") == "params.id is required")
        #expect(invalidParams("cancel", #"{"id":1.5}"#) == "params.id must be an integer or a string (got 1.5)")
        #expect(invalidParams("cancel", #"{"id":{}}"#) == "params.id must be an integer or a string (got an object)")
    }

    @Test("error messages never echo long hostile values in full")
    func shortMessages() {
        let long = String(repeating: "A", count: 5_000)
        let message = invalidParams("transact", #"{"device":"m","data":"x","timeout_ms":"\#(long)"}"#)
        #expect((message?.count ?? .max) < 150)
    }

    @Test("client encoding round-trips through the daemon's decoding, for every method")
    func roundTrip() throws {
        let methods: [Method] = [
            .devicesList, .daemonStatus, .deviceStatus(DeviceParams(device: "gps")),
            .transact(TransferParams(device: "m", data: Array("AT\r\n\"é".utf8), timeoutMs: 5, waitMs: 0)),
            .write(TransferParams(device: "m", data: [0xFF, 0x00, 0xC3])),
            .read(ReadParams(device: "gps", timeoutMs: 1, maxFrames: 2)),
            .subscribe(SubscriptionParams(device: "gps", events: [.data])), .unsubscribe(SubscriptionParams()),
            .lock(LockParams(device: "m", timeoutMs: 1, leaseMs: 2)), .unlock(DeviceParams(device: "m")),
            .cancel(CancelParams(id: .string("x"))), .cancel(CancelParams(id: .int(-3))),
            .attach(AttachParams(device: "m", waitMs: 0)), .attach(AttachParams(device: "m")),
            .control(ControlParams(device: "esp", dtr: true)),
            .control(
                ControlParams(
                    device: "esp",
                    rts: false,
                    sequence: [LineStep(dtr: false, rts: true, ms: 100), LineStep(dtr: true, ms: 0)],
                    breakMs: 250,
                    waitMs: 0
                )
            ),
            .clientsList, .clientDisconnect(ClientParams(id: 7)),
        ]
        #expect(Set(methods.map(\.name)) == Set(MethodName.allCases))
        for (index, method) in methods.enumerated() {
            let request = Request(id: .int(Int64(index)), method: method)
            let line = request.line
            #expect(line.last == 0x0A)
            #expect(try Request.decode(line.dropLast()) == request)
        }
        let binary = Request(id: .int(1), method: .write(TransferParams(device: "m", data: [0xFF]))).line
        #expect(String(decoding: binary, as: UTF8.self).contains(#""data_base64":"/w==""#))
    }
}
