import AccessoryTestSupport
import ControlProtocol
import ControlServer
import IOLoop
import JSONCodec
import Testing

/// Every byte a client makes the server hold counts against `maxOutboundBytes`: a batch whose
/// answers could not fit is refused whole before any element runs; answers held for a batch
/// count while they wait; a reply longer than the whole limit is replaced by an error.
@Suite("batch and reply limits")
struct BatchLimitTests {
    static func discover(id: Int) -> String { "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"rpc.discover\"}" }

    /// The length of `rpc.discover`'s answer line.
    static let documentBytes: Int = ResponseEncoder.successLine(id: .int(1), result: OpenRPCDocument()).count

    @Test("a batch whose answers cannot fit is refused whole with one error, and none of it runs")
    func batchRefusedBeforeItRuns() throws {
        let handler = TestHandler()
        try withServer(handler: handler) { h in
            let client = try h.client()
            // The request is first: it must not run although it comes before the discoveries.
            let calls = [listRequest(id: 0)] + (1...1_000).map { Self.discover(id: $0) }
            #expect(client.send("[" + calls.joined(separator: ",") + "]\n"))
            let response = try #require(client.readResponse())
            #expect(response.id == nil)
            #expect(response.errorCode == ErrorCode.invalidRequest.rawValue)
            #expect(response.error?.data?["limit"] == "client_outbound_bytes")
            #expect((response.error?.data?["reply_bytes"]?.int64Value ?? 0) > 1_048_576)
            #expect(response.error?.message.contains("none of it ran") == true, "\(response)")
            #expect(handler.requests.value.isEmpty, "an element ran: \(handler.requests.value)")
            #expect(h.server.statistics.batchesRefused == 1)
            #expect(h.logs.contains(.notice, "refused a batch of 1001 calls"))
            // The client is still served.
            #expect(client.call(listRequest(id: 9))?.id == .int(9))
        }
    }

    @Test("answers held for a batch count against the limit while the batch waits")
    func heldAnswersAreCounted() throws {
        let handler = TestHandler(TestHandler.hold)
        try withServer(handler: handler) { h in
            let client = try h.client()
            #expect(client.send("[" + Self.discover(id: 1) + "," + listRequest(id: 2) + "]\n"))
            #expect(Wait.until(seconds: 5) { handler.requests.value.count == 1 })
            let connection = try #require(handler.connections.value.first)
            #expect(connection.outboundBytes >= Self.documentBytes, "held: \(connection.outboundBytes)")
            connection.respond(id: .int(2), result: JSONValue.object([:]))
            let line = try #require(client.readLine())
            #expect(try JSONParser.parse(Array(line.utf8)).arrayValue?.count == 2)
            #expect(Wait.until(seconds: 5) { connection.outboundBytes == 0 }, "\(connection.outboundBytes) left")
        }
    }

    @Test("an answer that does not fit beside the rest of its batch is replaced by an error in its place")
    func answerThatDoesNotFitBesideItsBatch() throws {
        let limit = 64 * 1024
        let handler = TestHandler(TestHandler.hold)
        try withServer(limits: ControlServerLimits(maxOutboundBytes: limit), handler: handler) { h in
            let client = try h.client()
            let line = "[" + Self.discover(id: 1) + "," + listRequest(id: 2) + "," + listRequest(id: 3) + "]\n"
            #expect(client.send(line))
            #expect(Wait.until(seconds: 5) { handler.requests.value.count == 2 })
            let connection = try #require(handler.connections.value.first)
            let big = JSONValue.object(["blob": .string(String(repeating: "b", count: limit - Self.documentBytes))])
            connection.respond(id: .int(2), result: big)
            connection.respond(id: .int(3), result: JSONValue.object([:]))
            let reply = try #require(client.readLine())
            let elements = try #require(try JSONParser.parse(Array(reply.utf8)).arrayValue)
            #expect(elements.count == 3)
            #expect(elements[0]["result"] != nil)
            #expect(elements[1]["error"]?["data"]?["limit"] == "client_outbound_bytes", "\(elements[1])")
            #expect(elements[2]["result"] == .object([:]))
            #expect(h.server.statistics.repliesTooLarge == 1)
            #expect(Wait.until(seconds: 5) { connection.outboundBytes == 0 }, "\(connection.outboundBytes) left")
        }
    }

    @Test("a reply longer than the whole limit is replaced by an error naming the limit; the client stays")
    func replyLongerThanTheLimit() throws {
        try withServer(limits: ControlServerLimits(maxOutboundBytes: 4_096)) { h in
            let client = try h.client()
            let response = try #require(client.call(Self.discover(id: 7)))
            #expect(response.id == .int(7))
            #expect(response.errorCode == ErrorCode.invalidRequest.rawValue)
            #expect(response.error?.data?["limit"] == "client_outbound_bytes")
            #expect(response.error?.data?["reply_bytes"]?.int64Value == Int64(Self.documentBytes))
            #expect(h.server.statistics.repliesTooLarge == 1)
            #expect(client.call(listRequest(id: 8))?.id == .int(8))
        }
    }

    @Test(
        "answers waiting on one connection are bounded: a batch past the bound is refused whole, a notification dropped"
    )
    func routedAnswersAreBounded() throws {
        let handler = TestHandler(TestHandler.hold)
        try withServer(limits: ControlServerLimits(maxRoutedReplies: 2), handler: handler) { h in
            let client = try h.client()
            let three = "[" + (1...3).map { listRequest(id: $0) }.joined(separator: ",") + "]\n"
            #expect(client.send(three))
            let refused = try #require(client.readResponse())
            #expect(refused.errorCode == ErrorCode.queueFull.rawValue)
            #expect(refused.error?.data?["limit"] == "max_requests_per_client", "\(refused)")
            #expect(handler.requests.value.isEmpty)
            // Two fit; then a notification finds no room and is not executed.
            #expect(client.send("[" + listRequest(id: 4) + "," + listRequest(id: 5) + "]\n"))
            #expect(Wait.until(seconds: 5) { handler.requests.value.count == 2 })
            let errors = h.server.statistics.decodeErrors
            #expect(client.send("{\"jsonrpc\":\"2.0\",\"method\":\"devices.list\"}\n"))
            #expect(Wait.until(seconds: 5) { h.server.statistics.decodeErrors == errors + 1 })
            #expect(handler.requests.value.count == 2)
        }
    }
}
