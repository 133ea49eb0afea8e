import AccessoryTestSupport
import ControlProtocol
import ControlServer
import Glibc
import IOLoop
import JSONCodec
import Testing

@Suite("Limits: line length, slow readers, client count")
struct LimitTests {
    @Test("an over-long line: a final error line, disconnect, others unaffected", arguments: [false, true])
    func lineTooLong(withNewline: Bool) throws {
        try withServer(limits: ControlServerLimits(maxLineBytes: 1024)) { h in
            let bystander = try h.client()
            #expect(bystander.call(listRequest(id: 1))?.result != nil)

            let offender = try h.client()
            let line = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + String(repeating: "x", count: 4000) + "\"}"
            #expect(offender.send(line + (withNewline ? "\n" : "")))
            let response = try #require(offender.readResponse())
            #expect(response.errorCode == ErrorCode.invalidRequest.rawValue)
            #expect(response.id == nil)
            #expect(response.error?.message.contains("1024") == true)
            #expect(offender.waitForClose())

            #expect(Wait.until(seconds: 5) { h.server.statistics.disconnectedLineTooLong == 1 })
            #expect(Wait.until(seconds: 5) { h.handler.closed.value.count == 1 })
            #expect(h.handler.closed.value.first?.reason == .lineTooLong(limit: 1024))
            #expect(h.logs.contains(.warning, "longer than 1024 bytes"))
            #expect(bystander.call(listRequest(id: 2))?.result != nil)
            #expect(h.server.statistics.clients == 1)
        }
    }

    @Test("a client that never reads is disconnected at the outbound limit; memory stays bounded")
    func slowReader() throws {
        let limit = 64 * 1024
        let notification = JSONValue.object(["blob": .string(String(repeating: "n", count: 1000))])
        let peak = Shared(0)
        let sent = Shared(0)
        try withWorkerLoop { worker in
            // On `subscribe`, flood notifications from the worker thread until the server drops the
            // client (bounded: at most 20,000 × 1 kB).
            let handler = TestHandler { request, connection in
                guard case .subscribe = request.method else { return TestHandler.echo(request, connection) }
                connection.respond(id: request.id, result: JSONValue.object([:]))
                worker.perform {
                    for _ in 0..<20_000 where connection.isOpen {
                        connection.notify(method: "device.data", params: notification)
                        sent.mutate { $0 += 1 }
                        let queued = connection.outboundBytes
                        peak.mutate { $0 = max($0, queued) }
                    }
                }
            }
            try withServer(limits: ControlServerLimits(maxOutboundBytes: limit), handler: handler) { h in
                let reader = try h.client()
                let sleeper = try h.client()
                #expect(sleeper.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscribe\"}\n"))
                #expect(Wait.until(seconds: 10) { h.handler.closed.value.count == 1 })
                let record = try #require(h.handler.closed.value.first)
                guard case .slowReader(_, let reportedLimit) = record.reason else {
                    Issue.record("closed for \(String(describing: record.reason))")
                    return
                }
                #expect(reportedLimit == limit)
                #expect(h.server.statistics.disconnectedSlowReader == 1)
                #expect(h.logs.contains(.warning, "slow reader"))
                // Bounded: never more than the limit plus one line was queued.
                #expect(peak.value <= limit + 1100, "peak \(peak.value)")
                #expect(sent.value < 20_000)
                // Others are still served.
                #expect(reader.call(listRequest(id: 2))?.result != nil)
                #expect(sleeper.waitForClose())
            }
        }
    }

    @Test("max clients: the limit holds, refused clients get an error line, a new client is served once one leaves")
    func maxClients() throws {
        // No reserve: this process's uid would be allowed in it.
        try withServer(limits: ControlServerLimits(maxClients: 3, reservedConnections: 0)) { h in
            var clients = try (0..<3).map { _ in try h.client() }
            for (i, c) in clients.enumerated() { #expect(c.call(listRequest(id: i))?.result != nil) }

            for _ in 0..<10 {
                let refused = try h.client()
                let response = try #require(refused.readResponse())
                #expect(response.errorCode == ControlServer.tooManyClientsErrorCode)
                #expect(response.error?.message.contains("too many clients") == true)
                // The setting to raise, and its value.
                #expect(response.error?.message.contains("(limits.max_clients 3)") == true)
                #expect(refused.waitForClose())
            }
            #expect(h.server.statistics.rejectedOverLimit == 10)
            #expect(h.server.statistics.clients == 3)
            #expect(h.logs.contains(.warning, "refused a connection"))
            // The refusal log is throttled (one line a second): 10 quick refusals give one or two.
            #expect(h.logs.lines.value.filter { $0.1.contains("refused a connection") }.count <= 2)

            clients.removeFirst().close()
            #expect(Wait.until(seconds: 5) { h.server.statistics.clients == 2 })
            let newcomer = try h.client()
            #expect(newcomer.call(listRequest(id: 9))?.result != nil)
            for c in clients { #expect(c.call(listRequest(id: 10))?.result != nil) }
            #expect(h.server.statistics.acceptedTotal == 4)
        }
    }

    @Test("connections per uid: one uid's extra connections are refused by name; exempt uids are not held to it")
    func connectionsPerUID() throws {
        // This process's uid is not exempt here, so the test's own clients meet the limit.
        let limits = ControlServerLimits(maxClients: 10, maxConnectionsPerUID: 2, connectionLimitExemptUIDs: [])
        try withServer(limits: limits) { h in
            var clients = try (0..<2).map { _ in try h.client() }
            for (i, c) in clients.enumerated() { #expect(c.call(listRequest(id: i))?.result != nil) }
            let refused = try h.client()
            let response = try #require(refused.readResponse())
            #expect(response.errorCode == ControlServer.tooManyClientsErrorCode)
            #expect(response.error?.data?["reason"] == "too_many_connections_for_uid")
            #expect(response.error?.message.contains("limits.max_connections_per_uid") == true)
            #expect(refused.waitForClose())
            clients.removeFirst().close()
            #expect(Wait.until(seconds: 5) { h.server.statistics.clients == 1 })
            let newcomer = try h.client()
            #expect(newcomer.call(listRequest(id: 9))?.result != nil, "a closed connection gives its slot back")
        }
        let exempt = ControlServerLimits(
            maxClients: 10,
            maxConnectionsPerUID: 2,
            connectionLimitExemptUIDs: [geteuid()]
        )
        try withServer(limits: exempt) { h in
            let clients = try (0..<4).map { _ in try h.client() }
            for (i, c) in clients.enumerated() { #expect(c.call(listRequest(id: i))?.result != nil) }
        }
    }

    @Test("a burst of connections far beyond the limit: the limit holds, the queue never fills")
    func connectionBurst() throws {
        try withServer(limits: ControlServerLimits(maxClients: 50, reservedConnections: 0)) { h in
            let idle = try (0..<50).map { _ in try h.client() }
            #expect(Wait.until(seconds: 5) { h.server.statistics.clients == 50 })
            var refused = 0
            for _ in 0..<500 {
                // A full listen queue would make connect fail with EAGAIN; it never should.
                let extra = try h.client()
                if extra.waitForClose(seconds: 5) { refused += 1 }
            }
            #expect(refused == 500)
            #expect(h.server.statistics.rejectedOverLimit == 500)
            #expect(h.server.statistics.clients == 50)
            for client in idle.prefix(5) { client.close() }
            #expect(Wait.until(seconds: 5) { h.server.statistics.clients == 45 })
            #expect(try h.client().call(listRequest(id: 1))?.result != nil)
        }
    }
}
