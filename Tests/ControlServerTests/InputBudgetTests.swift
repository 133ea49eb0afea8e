import AccessoryTestSupport
import ControlProtocol
import ControlServer
import Glibc
import IOLoop
import Testing

@Suite("Input budget: request bytes read per turn of the loop")
struct InputBudgetTests {
    /// Four clients fill their sockets while the loop is held; then no turn may handle more
    /// requests than the budget's bytes hold (plus the one line a turn may complete), and every
    /// request is still answered. Without the budget one turn reads every socket whole.
    @Test("a flood is spread over turns, each within the budget, and every request is answered")
    func floodSpreadOverTurns() throws {
        let budget = 1024
        let clients = 4
        let perClient = 200
        let serverLoop = Shared<IOLoop?>(nil)
        let handledPerTurn = Shared<[UInt64: Int]>([:])
        let handler = TestHandler { request, connection in
            if let loop = serverLoop.value {
                handledPerTurn.mutate { $0[loop.waitCount, default: 0] += 1 }
            }
            TestHandler.echo(request, connection)
        }
        try withServer(limits: ControlServerLimits(inputBytesPerTurn: budget), handler: handler) { h in
            serverLoop.mutate { $0 = h.loop }
            let connections = try (0..<clients).map { _ in try h.client() }
            for c in connections { #expect(c.call(listRequest(id: 0))?.result != nil) }
            handledPerTurn.mutate { $0.removeAll() }

            // Hold the loop until every client's burst sits in its socket.
            let sent = Shared(false)
            h.loop.perform { _ = Wait.until(seconds: 5) { sent.value } }
            var shortest = Int.max
            for c in connections {
                let lines = (1...perClient).map { listRequest(id: $0) + "\n" }
                shortest = min(shortest, lines.map(\.utf8.count).min()!)
                #expect(c.send(lines.joined()))
            }
            sent.mutate { $0 = true }

            for c in connections {
                for _ in 1...perClient { #expect(c.readResponse()?.result != nil) }
            }
            let turns = handledPerTurn.value
            #expect(turns.values.reduce(0, +) == clients * perClient)
            let mostInOneTurn = turns.values.max() ?? 0
            #expect(mostInOneTurn <= budget / shortest + 1, "\(mostInOneTurn) requests handled in one turn")
            #expect(turns.count >= clients * perClient * shortest / budget)
            #expect(h.server.statistics.inputDeferrals > 0)
        }
    }

    @Test("a line longer than the budget still arrives whole, over several turns")
    func lineLongerThanBudget() throws {
        try withServer(limits: ControlServerLimits(inputBytesPerTurn: 64)) { h in
            let c = try h.client()
            let spaces = String(repeating: " ", count: 1000)
            let padded = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"devices.list\"" + spaces + "}"
            let response = try #require(c.call(padded))
            #expect(response.id == .int(7))
            #expect(response.result != nil)
        }
    }
}
