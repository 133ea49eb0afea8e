import AccessoryTestSupport
import Testing

@testable import ControlProtocol

/// Decodes `line` and returns the rejection, or records an issue if it was accepted.
func rejection(_ line: String) -> RequestRejection? {
    rejection(Array(line.utf8))
}

func rejection(_ bytes: [UInt8]) -> RequestRejection? {
    do {
        let request = try Request.decode(bytes)
        Issue.record("accepted \(String(decoding: bytes, as: UTF8.self)) as \(request)")
        return nil
    } catch {
        return error
    }
}

func request(_ line: String) throws -> Request {
    try Request.decode(Array(line.utf8))
}

@Suite("JSON-RPC request decoding")
struct RequestDecodingTests {
    @Test("a typical transact line")
    func transact() throws {
        let decoded = try request(
            #"{"jsonrpc":"2.0","id":42,"method":"transact","params":{"device":"modem","data":"AT+CSQ","timeout_ms":1000}}"#
        )
        #expect(decoded.id == .int(42))
        #expect(
            decoded.method == .transact(TransferParams(device: "modem", data: Array("AT+CSQ".utf8), timeoutMs: 1000))
        )
        #expect(decoded.method.device == "modem")
        #expect(decoded.method.name == .transact)
    }

    @Test("string ids, member order, a trailing CR, params omitted or null")
    func variants() throws {
        #expect(try request(#"{"method":"devices.list","id":"a-1","jsonrpc":"2.0"}"#).id == .string("a-1"))
        #expect(
            try request(#"{"jsonrpc":"2.0","id":1,"method":"daemon.status","params":null}"# + "\r").method
                == .daemonStatus
        )
        #expect(try request(#"{"jsonrpc":"2.0","id":1,"method":"daemon.status","params":{}}"#).method == .daemonStatus)
        #expect(try request(#"{"jsonrpc":"2.0","id":-5,"method":"devices.list"}"#).id == .int(-5))
        #expect(try request(#"{"jsonrpc":"2.0","id":"","method":"devices.list"}"#).id == .string(""))
    }

    @Test(
        "parse errors: -32700 with id null",
        arguments: [
            ("", "empty input"),
            ("{", "unexpected end of input"),
            (#"{"jsonrpc":"2.0","id":1,"method":"devices.list""#, "unexpected end of input"),
            (#"{"jsonrpc":"2.0","id":1,"method":"devices.list"} x"#, "unexpected data after the JSON value"),
            (#"{"jsonrpc":"2.0","id":1,"id":2,"method":"devices.list"}"#, "duplicate key \"id\""),
            ("{'id':1}", "unexpected character '''"),
            ("\u{0}", "unexpected byte 0x00"),
            (String(repeating: "[", count: 100), "nested deeper than 64 levels"),
        ]
    )
    func parseErrors(line: String, message: String) {
        let rejected = rejection(line)
        #expect(rejected?.id == nil)
        #expect(rejected?.error.code == -32700)
        #expect(rejected?.error.message.contains(message) == true, "\(String(describing: rejected))")
    }

    @Test("invalid UTF-8 anywhere (e.g. in data) is a parse error that suggests data_base64")
    func invalidUTF8() {
        var bytes = Array(#"{"jsonrpc":"2.0","id":1,"method":"write","params":{"device":"d","data":"a"#.utf8)
        let column = bytes.count + 1
        bytes += [0xFF, 0xFE]
        bytes += Array(#""}}"#.utf8)
        let rejected = rejection(bytes)
        #expect(rejected?.error.code == -32700)
        #expect(rejected?.error.message.contains("invalid UTF-8 (byte 0xFF) at column \(column)") == true)
        #expect(rejected?.error.message.contains("data_base64") == true)
        // An escaped lone surrogate cannot smuggle invalid text in either.
        let escaped = rejection(#"{"jsonrpc":"2.0","id":1,"method":"write","params":{"device":"d","data":"\udc00"}}"#)
        #expect(escaped?.error.code == -32700)
        #expect(escaped?.error.message.contains("unpaired UTF-16 surrogate") == true)
    }

    @Test(
        "invalid requests: -32600 with id null when the id is unusable",
        arguments: [
            (#"[{"jsonrpc":"2.0","id":1,"method":"devices.list"}]"#, "a JSON array (a batch)"),
            ("[]", "a JSON array (a batch)"),
            ("42", "a request must be a JSON object (got an integer)"),
            (#""hello""#, "a request must be a JSON object (got a string)"),
            ("null", "a request must be a JSON object (got null)"),
            ("true", "(got a boolean)"),
            (#"{"jsonrpc":"2.0","method":"devices.list"}"#, "a request without one is a notification"),
            (
                #"{"jsonrpc":"2.0","id":null,"method":"devices.list"}"#,
                "\"id\" must be an integer or a string, not null"
            ),
            (
                #"{"jsonrpc":"2.0","id":{},"method":"devices.list"}"#,
                "\"id\" must be an integer or a string (got an object)"
            ),
            (#"{"jsonrpc":"2.0","id":[1],"method":"devices.list"}"#, "(got an array)"),
            (#"{"jsonrpc":"2.0","id":1.5,"method":"devices.list"}"#, "(got 1.5)"),
            (#"{"jsonrpc":"2.0","id":1.0,"method":"devices.list"}"#, "(got 1.0)"),
            (#"{"jsonrpc":"2.0","id":1e3,"method":"devices.list"}"#, "(got 1000.0)"),
            (#"{"jsonrpc":"2.0","id":true,"method":"devices.list"}"#, "(got true)"),
            (#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"devices.list"}"#, "is out of range"),
            (#"{}"#, "missing \"id\""),
        ]
    )
    func invalidWithoutID(line: String, message: String) {
        let rejected = rejection(line)
        #expect(rejected?.id == nil)
        #expect(rejected?.error.code == -32600)
        #expect(rejected?.error.message.contains(message) == true, "\(String(describing: rejected))")
    }

    @Test(
        "invalid requests: -32600 echoing the id",
        arguments: [
            (#"{"id":7,"method":"devices.list"}"#, "missing \"jsonrpc\": \"2.0\""),
            (#"{"jsonrpc":"1.0","id":7,"method":"devices.list"}"#, "\"jsonrpc\" must be \"2.0\" (got \"1.0\")"),
            (#"{"jsonrpc":2.0,"id":7,"method":"devices.list"}"#, "(got 2.0)"),
            (#"{"jsonrpc":"2.0","id":7}"#, "missing \"method\""),
            (#"{"jsonrpc":"2.0","id":7,"method":null}"#, "\"method\" must be a string (got null)"),
            (#"{"jsonrpc":"2.0","id":7,"method":5}"#, "\"method\" must be a string (got 5)"),
            (#"{"jsonrpc":"2.0","id":7,"method":"devices.list","params":"x"}"#, "\"params\" must be an object"),
            (
                #"{"jsonrpc":"2.0","id":7,"method":"devices.list","parms":{}}"#,
                "unknown member \"parms\" in the request (did you mean \"params\"?)"
            ),
        ]
    )
    func invalidWithID(line: String, message: String) {
        let rejected = rejection(line)
        #expect(rejected?.id == .int(7))
        #expect(rejected?.error.code == -32600)
        #expect(rejected?.error.message.contains(message) == true, "\(String(describing: rejected))")
    }

    @Test("unknown methods: -32601 with a suggestion when close")
    func unknownMethod() {
        let typo = rejection(#"{"jsonrpc":"2.0","id":"x","method":"devices.lst"}"#)
        #expect(typo?.id == .string("x"))
        #expect(typo?.error.code == -32601)
        #expect(typo?.error.message == #"unknown method "devices.lst" (did you mean "devices.list"?)"#)
        let other = rejection(#"{"jsonrpc":"2.0","id":1,"method":"rpc.discover","params":[1]}"#)
        #expect(other?.error.code == -32601)
        #expect(other?.error.message == #"unknown method "rpc.discover""#)
        let long = rejection(#"{"jsonrpc":"2.0","id":1,"method":""# + String(repeating: "x", count: 10_000) + #""}"#)
        #expect((long?.error.message.count ?? .max) < 100)
    }

    @Test("by-position params: -32602")
    func positional() {
        let rejected = rejection(#"{"jsonrpc":"2.0","id":1,"method":"transact","params":["modem","AT"]}"#)
        #expect(rejected?.error.code == -32602)
        #expect(rejected?.error.message.contains("by-position params are not supported") == true)
    }

    @Test("the rejection's response line is ready to send")
    func responseLine() throws {
        let rejected = try #require(rejection(#"{"jsonrpc":"2.0","id":9,"method":"nope"}"#))
        let line = String(decoding: rejected.responseLine, as: UTF8.self)
        #expect(line == #"{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"unknown method \"nope\""}}"# + "\n")
        let parse = try #require(rejection("{"))
        #expect(
            String(decoding: parse.responseLine, as: UTF8.self).hasPrefix(
                #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"#
            )
        )
    }

    @Test("binary garbage never crashes and always yields -32700 or -32600")
    func garbage() {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<2_000 {
            let length = Int(generator.next() % 64)
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if let rejected = try? Request.decode(bytes) {
                Issue.record("garbage accepted: \(rejected)")
            }
        }
    }
}
