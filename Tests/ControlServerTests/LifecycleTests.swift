import AccessoryTestSupport
import ControlServer
import Glibc
import IOLoop
import JSONCodec
import Testing

@testable import ControlProtocol

@Suite("Connection lifecycle, ordering, shutdown")
struct LifecycleTests {
    @Test("connectionDidClose when a client leaves with requests pending; late replies are no-ops")
    func closeWithPending() throws {
        try withServer(handler: TestHandler(TestHandler.hold)) { h in
            let client = try h.client()
            #expect(client.send((1...3).map { listRequest(id: $0) + "\n" }.joined()))
            #expect(Wait.until(seconds: 5) { h.handler.requests.value.count == 3 })
            client.close()
            #expect(Wait.until(seconds: 5) { h.handler.closed.value.count == 1 })
            let record = try #require(h.handler.closed.value.first)
            #expect(record.pendingRequests == 3)
            #expect(record.reason == .peerClosed)
            let connection = try #require(h.handler.connections.value.first)
            #expect(!connection.isOpen)
            connection.respond(id: .int(1), result: JSONValue.null)
            connection.notify(method: "device.data", params: JSONValue.object([:]))
            #expect(connection.outboundBytes == 0)
            #expect(h.server.statistics.clients == 0)
        }
    }

    @Test("replies from another thread arrive in order, per connection, with several clients")
    func orderFromAnotherThread() throws {
        try withWorkerLoop { worker in
            try withServer(handler: TestHandler(TestHandler.echo(from: worker))) { h in
                let clients = try (0..<4).map { _ in try h.client() }
                for (c, client) in clients.enumerated() {
                    #expect(client.send((1...200).map { listRequest(id: c * 1000 + $0) + "\n" }.joined()))
                }
                for (c, client) in clients.enumerated() {
                    for i in 1...200 {
                        let response = try #require(client.readResponse(), "client \(c) reply \(i)")
                        #expect(response.id == .int(Int64(c * 1000 + i)))
                    }
                }
                #expect(h.server.statistics.requestsDecoded == 800)
            }
        }
    }

    @Test("a client that half-closes still gets its replies, then end of file")
    func halfClose() throws {
        try withWorkerLoop { worker in
            let delayed = TestHandler { request, connection in
                worker.perform {
                    worker.scheduleTimer(after: .milliseconds(50)) { TestHandler.echo(request, connection) }
                }
            }
            try withServer(handler: delayed) { h in
                let client = try h.client()
                #expect(client.send(listRequest(id: 1) + "\n" + listRequest(id: 2) + "\n"))
                #expect(Wait.until(seconds: 5) { h.handler.requests.value.count == 2 })
                client.shutdownWriting()
                #expect(client.readResponse()?.id == .int(1))
                #expect(client.readResponse()?.id == .int(2))
                #expect(client.waitForClose())
                #expect(Wait.until(seconds: 5) { h.handler.closed.value.first?.reason == .peerClosed })
            }
        }
    }

    @Test("shutdown: stops accepting at once, lets in-flight replies out, then closes")
    func shutdownFlushes() throws {
        try withWorkerLoop { worker in
            let delayed = TestHandler { request, connection in
                worker.perform {
                    worker.scheduleTimer(after: .milliseconds(100)) { TestHandler.echo(request, connection) }
                }
            }
            try withServer(handler: delayed) { h in
                let client = try h.client()
                #expect(client.send(listRequest(id: 1) + "\n"))
                #expect(Wait.until(seconds: 5) { h.handler.requests.value.count == 1 })
                let done = Shared(false)
                h.server.beginShutdown(flushTimeout: .seconds(5)) { done.mutate { $0 = true } }
                #expect(Wait.until(seconds: 2) { (try? TestClient(path: h.path)) == nil })
                #expect(client.readResponse()?.id == .int(1))
                #expect(client.waitForClose())
                #expect(Wait.until(seconds: 5) { done.value })
                #expect(h.handler.closed.value.first?.reason == .serverShutdown)
            }
        }
    }

    @Test("shutdown is bounded when replies never come: done at the flush timeout, not before")
    func shutdownBounded() throws {
        let s = try VirtualTimeServer()
        defer { s.close() }
        #expect(s.client.send(listRequest(id: 1) + "\n"))
        let handler = s.handler
        #expect(spin(s.loop) { handler.requests.value.count == 1 })
        let stopped = s.beginShutdown(flushTimeout: .milliseconds(200))
        s.runUntilTimerSet()
        s.clock.advanceTime(by: .milliseconds(199))
        #expect(!stopped.value, "still waiting for the reply")
        s.clock.advanceTime(by: .milliseconds(1))
        #expect(stopped.value)
        #expect(s.client.waitForClose())
        let record = try #require(s.handler.closed.value.first)
        #expect(record.reason == .serverShutdown && record.pendingRequests == 1)
        // Idempotent: a second shutdown is done at once.
        let again = s.beginShutdown(flushTimeout: .milliseconds(200))
        #expect(spin(s.loop) { again.value })
        #expect(s.clock.nextTimerDeadline == nil)
    }

    @Test("the handler may disconnect a client from any thread")
    func handlerDisconnects() throws {
        let handler = TestHandler { request, connection in
            if case .daemonStatus = request.method {
                connection.disconnect("not allowed")
            } else {
                TestHandler.echo(request, connection)
            }
        }
        try withServer(handler: handler) { h in
            let client = try h.client()
            #expect(client.call(listRequest(id: 1))?.result != nil)
            #expect(client.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"daemon.status\"}\n"))
            #expect(client.waitForClose())
            #expect(Wait.until(seconds: 5) { h.handler.closed.value.first?.reason == .disconnected("not allowed") })
            #expect(h.logs.contains(.info, "not allowed"))
        }
    }

    @Test("statistics are readable from any thread and encode as JSON")
    func statisticsJSON() throws {
        try withServer { h in
            let client = try h.client()
            #expect(client.call(listRequest(id: 1))?.result != nil)
            #expect(client.call("nonsense")?.errorCode == ErrorCode.parseError.rawValue)
            var bytes: [UInt8] = []
            h.server.statistics.encodeJSON(into: &bytes)
            let json = try JSONParser.parse(bytes)
            #expect(json["clients"]?.int64Value == 1)
            #expect(json["accepted_total"]?.int64Value == 1)
            #expect(json["requests_decoded"]?.int64Value == 1)
            #expect(json["decode_errors"]?.int64Value == 1)
            #expect(json["rejected_over_limit"]?.int64Value == 0)
        }
    }
}
