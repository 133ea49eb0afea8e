import AccessoryTestSupport
import ControlProtocol
import ControlServer
import Glibc
import Testing

/// The connections kept beyond `maxClients` for root and the daemon's own user: when other
/// users hold every ordinary slot, an administrator can still connect.
@Suite("reserved connections")
struct ReservedConnectionTests {
    @Test("a privileged uid gets the reserve once every ordinary slot is taken, then is refused too")
    func privilegedUIDUsesTheReserve() throws {
        let limits = ControlServerLimits(maxClients: 2, connectionLimitExemptUIDs: [geteuid()], reservedConnections: 2)
        try withServer(limits: limits) { h in
            let clients = try (0..<4).map { _ in try h.client() }
            for (i, c) in clients.enumerated() { #expect(c.call(listRequest(id: i))?.result != nil, "client \(i)") }
            #expect(h.server.statistics.acceptedInReserve == 2)
            #expect(h.logs.contains(.notice, "in the reserve"))
            let refused = try h.client()
            let response = try #require(refused.readResponse())
            #expect(response.errorCode == ControlServer.tooManyClientsErrorCode)
            #expect(
                response.error?.message.contains("limits.max_clients 2 and limits.reserved_connections 2") == true,
                "\(String(describing: response.error?.message))"
            )
            #expect(refused.waitForClose())
            #expect(h.server.statistics.clients == 4)
        }
    }

    @Test("any other uid is refused at maxClients, the reserve notwithstanding")
    func otherUIDIsRefusedAtMaxClients() throws {
        let limits = ControlServerLimits(maxClients: 2, connectionLimitExemptUIDs: [], reservedConnections: 4)
        try withServer(limits: limits) { h in
            let clients = try (0..<2).map { _ in try h.client() }
            for (i, c) in clients.enumerated() { #expect(c.call(listRequest(id: i))?.result != nil) }
            let refused = try h.client()
            let response = try #require(refused.readResponse())
            #expect(response.errorCode == ControlServer.tooManyClientsErrorCode)
            #expect(response.error?.data?["reason"] == "too_many_clients")
            // Refused in the reserve it may not use: the ordinary limit is the one it hit.
            #expect(response.error?.message.contains("(limits.max_clients 2)") == true)
            #expect(refused.waitForClose())
            #expect(h.server.statistics.acceptedInReserve == 0)
            #expect(h.server.statistics.rejectedOverLimit == 1)
        }
    }
}
