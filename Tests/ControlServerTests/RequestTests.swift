import AccessoryTestSupport
import ControlProtocol
import ControlServer
import Glibc
import Testing

@Suite("Requests and rejections")
struct RequestTests {
    @Test("a valid request gets its response")
    func validRequest() throws {
        try withServer { h in
            let client = try h.client()
            let response = try #require(client.call(listRequest(id: 1)))
            #expect(response.id == .int(1))
            #expect(response.result == .object(["method": .string("devices.list")]))
            #expect(h.server.statistics.requestsDecoded == 1)
        }
    }

    /// A bad line, the error code it must get, and the id the error must carry.
    struct BadLine: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let code: ErrorCode
        let id: RequestID?
        var testDescription: String { name }

        init(_ name: String, _ text: String, _ code: ErrorCode, id: RequestID? = nil) {
            self.name = name
            self.bytes = Array(text.utf8)
            self.code = code
            self.id = id
        }

        init(_ name: String, bytes: [UInt8], _ code: ErrorCode) {
            self.name = name
            self.bytes = bytes
            self.code = code
            self.id = nil
        }
    }

    static let badLines: [BadLine] = [
        BadLine("malformed JSON", "{\"jsonrpc\":\"2.0\",\"id\":1,", .parseError),
        BadLine("not JSON at all", "hello", .parseError),
        BadLine("invalid UTF-8", bytes: [0x22, 0xFF, 0xFE, 0x22], .parseError),
        BadLine("a number, not an object", "42", .invalidRequest),
        BadLine("a string, not an object", "\"devices.list\"", .invalidRequest),
        BadLine("an empty batch", "[]", .invalidRequest),
        BadLine("no id and no method", "{\"jsonrpc\":\"2.0\"}", .invalidRequest),
        BadLine("null id", "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"devices.list\"}", .invalidRequest),
        BadLine("boolean id", "{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"devices.list\"}", .invalidRequest),
        BadLine("fractional id", "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"devices.list\"}", .invalidRequest),
        BadLine("object id", "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"devices.list\"}", .invalidRequest),
        BadLine(
            "wrong version",
            "{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"devices.list\"}",
            .invalidRequest,
            id: .int(3)
        ),
        BadLine(
            "unknown method",
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"devices.frobnicate\"}",
            .methodNotFound,
            id: .int(7)
        ),
        BadLine(
            "missing params",
            "{\"jsonrpc\":\"2.0\",\"id\":\"t\",\"method\":\"transact\",\"params\":{}}",
            .invalidParams,
            id: .string("t")
        ),
    ]

    @Test("a bad line gets the right error and the connection lives on", arguments: badLines)
    func badLine(_ bad: BadLine) throws {
        try withServer { h in
            let client = try h.client()
            #expect(client.send(bytes: bad.bytes + [UInt8(ascii: "\n")]))
            let response = try #require(client.readResponse())
            #expect(response.errorCode == bad.code.rawValue, "\(response)")
            #expect(response.id == bad.id)
            #expect(!(response.error?.message.isEmpty ?? true))
            // The same connection still works.
            let next = try #require(client.call(listRequest(id: 99)))
            #expect(next.id == .int(99) && next.result != nil)
            #expect(h.server.statistics.decodeErrors == 1)
            #expect(h.server.statistics.requestsDecoded == 1)
        }
    }

    @Test("CRLF line ends, blank lines and pipelined requests in one write")
    func framingVariants() throws {
        try withServer { h in
            let client = try h.client()
            let text = listRequest(id: 1) + "\r\n\n\r\n" + listRequest(id: 2) + "\n" + listRequest(id: 3) + "\r\n"
            #expect(client.send(text))
            for id in 1...3 {
                let response = try #require(client.readResponse())
                #expect(response.id == .int(Int64(id)) && response.result != nil)
            }
            #expect(h.server.statistics.decodeErrors == 0)
        }
    }

    @Test("a request written one byte at a time over ~200 ms")
    func byteByByte() throws {
        try withServer { h in
            let client = try h.client()
            let bytes = Array((listRequest(id: 42) + "\r\n").utf8)
            let pause = UInt32(200_000 / bytes.count)
            let start = MonotonicNow.seconds()
            for byte in bytes {
                #expect(client.send(bytes: [byte]))
                usleep(pause)  // Spreads the bytes over real time: a slow writer is what is tested.
            }
            #expect(MonotonicNow.seconds() - start >= 0.19)
            let response = try #require(client.readResponse())
            #expect(response.id == .int(42) && response.result != nil)
        }
    }

    @Test("a line of exactly the limit is accepted")
    func lineAtLimit() throws {
        let limit = 512
        try withServer(limits: ControlServerLimits(maxLineBytes: limit)) { h in
            let client = try h.client()
            let request = listRequest(id: 5)
            let padded = request + String(repeating: " ", count: limit - request.utf8.count)
            #expect(padded.utf8.count == limit)
            let response = try #require(client.call(padded))
            #expect(response.id == .int(5) && response.result != nil)
            // And with a CR before the newline.
            let again = try #require(client.call(padded + "\r"))
            #expect(again.id == .int(5) && again.result != nil)
        }
    }
}
