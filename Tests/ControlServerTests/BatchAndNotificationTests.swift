import AccessoryTestSupport
import ControlProtocol
import ControlServer
import IOLoop
import JSONCodec
import Testing

/// JSON-RPC 2.0 batches, notifications and `rpc.discover` at the server: what is answered, in
/// which shape, and what is never answered.
@Suite("control server: batches, notifications, rpc.discover")
struct BatchAndNotificationTests {
    /// Holds the first `count` requests, then answers them (`{"method": <name>}`) from `loop`
    /// in reverse order (a batch's array must still come back in element order); later ones at once.
    static func reversed(after count: Int, from loop: IOLoop) -> TestHandler.Behavior {
        let held = Shared<[(Request, ClientConnection)]>([])
        return { request, connection in
            let all = held.mutate { list -> [(Request, ClientConnection)] in
                list.append((request, connection))
                if list.count < count { return [] }
                return list.count == count ? list : [(request, connection)]  // later ones at once
            }
            loop.perform { for (request, connection) in all.reversed() { TestHandler.echo(request, connection) } }
        }
    }

    @Test("a batch: one array line, elements in order, errors in their place, each request handed over once")
    func batch() throws {
        try withWorkerLoop { worker in
            let handler = TestHandler(Self.reversed(after: 3, from: worker))
            try withServer(handler: handler) { h in
                let client = try h.client()
                let line =
                    "[" + listRequest(id: 1) + ",{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"nope\"},"
                    + "{\"jsonrpc\":\"2.0\",\"method\":\"daemon.status\"},"  // a notification: no element
                    + "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"daemon.status\"},42]\n"
                #expect(client.send(line))
                let reply = try #require(client.readLine())
                let elements = try #require(try JSONParser.parse(Array(reply.utf8)).arrayValue)
                #expect(elements.count == 4, "\(reply)")
                #expect(elements.map { $0["id"] } == [.integer(1), .integer(2), .integer(3), .null])
                #expect(elements[0]["result"]?["method"] == .string("devices.list"))
                #expect(elements[1]["error"]?["code"] == .integer(-32601))
                #expect(elements[2]["result"]?["method"] == .string("daemon.status"))
                #expect(elements[3]["error"]?["code"] == .integer(-32600))
                // The notification ran too (under an id of its own), after request 1, before 3.
                let seen = handler.requests.value
                #expect(seen.count == 3 && seen[0] == .int(1) && seen[2] == .int(3), "\(seen)")
                // Nothing else is sent: the next line answers the next request.
                let next = try #require(client.call(listRequest(id: 9)))
                #expect(next.id == .int(9))
            }
        }
    }

    @Test("a notification is executed and never answered, and a draining connection waits for it")
    func notification() throws {
        try withWorkerLoop { worker in
            let handler = TestHandler(TestHandler.echo(from: worker))
            try withServer(handler: handler) { h in
                let client = try h.client()
                #expect(client.send("{\"jsonrpc\":\"2.0\",\"method\":\"devices.list\"}\n"))
                #expect(client.send("[{\"jsonrpc\":\"2.0\",\"method\":\"devices.list\"}]\n"))
                #expect(client.send("{\"jsonrpc\":\"2.0\",\"method\":\"no.such.method\"}\n"))
                let next = try #require(client.call(listRequest(id: 5)))
                #expect(next.id == .int(5), "a notification was answered: \(next)")
                #expect(handler.requests.value.count == 3)
                #expect(h.server.statistics.decodeErrors == 1)
                // Fire and forget: the client closes its side at once; the notification still runs.
                #expect(client.send("{\"jsonrpc\":\"2.0\",\"method\":\"daemon.status\"}\n"))
                client.shutdownWriting()
                #expect(client.waitForClose())
                #expect(handler.requests.value.count == 4)
            }
        }
    }

    @Test("rpc.discover answers the embedded OpenRPC document; attach is refused in a batch")
    func discoverAndAttach() throws {
        try withServer { h in
            let client = try h.client()
            let response = try #require(client.call("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"rpc.discover\"}"))
            #expect(response.result?["openrpc"]?.stringValue != nil)
            #expect(response.result?["methods"]?.arrayValue?.isEmpty == false)
            #expect(
                client.send("[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"attach\",\"params\":{\"device\":\"d\"}}]\n")
            )
            let reply = try #require(client.readLine())
            #expect(reply.contains("attach cannot be part of a batch"), "\(reply)")
        }
    }
}
