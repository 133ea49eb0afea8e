import AccessoryTestSupport
import ControlProtocol
import ControlServer
import Glibc
import IOLoop
import Testing

@Suite("Input budget: request bytes read per turn of the loop")
struct InputBudgetTests {
    /// Four clients fill their sockets while the loop is held; then no turn may handle more
    /// requests than the budget's bytes hold, plus one line per client begun in an earlier turn,
    /// and every request is still answered. Without the budget one turn reads every socket whole.
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
            #expect(mostInOneTurn <= budget / shortest + clients, "\(mostInOneTurn) requests handled in one turn")
            #expect(turns.count >= clients * perClient * shortest / budget)
            #expect(h.server.statistics.inputDeferrals > 0)
        }
    }

    /// Every turn the loop's wait reports the readable clients in the same order; a budget spent
    /// greedily in that order would serve one flooding client until its socket ran dry while a
    /// client with one small request waited behind it. Each client gets its share every turn.
    @Test("a client with one request is served within a few turns of a flood, not after it")
    func oneRequestIsNotStarved() throws {
        let serverLoop = Shared<IOLoop?>(nil)
        let turns = Shared<[(turn: UInt64, id: RequestID)]>([])
        let handler = TestHandler { request, connection in
            if let loop = serverLoop.value { turns.mutate { $0.append((loop.waitCount, request.id)) } }
            TestHandler.echo(request, connection)
        }
        try withServer(limits: ControlServerLimits(inputBytesPerTurn: 1024), handler: handler) { h in
            serverLoop.mutate { $0 = h.loop }
            let flooders = try (0..<4).map { _ in try h.client() }
            let lone = try h.client()
            for c in flooders + [lone] { #expect(c.call(listRequest(id: 0))?.result != nil) }
            turns.mutate { $0.removeAll() }

            let sent = Shared(false)
            h.loop.perform { _ = Wait.until(seconds: 5) { sent.value } }
            for c in flooders { #expect(c.send((1...200).map { listRequest(id: $0) + "\n" }.joined())) }
            #expect(lone.send(listRequest(id: 999_999) + "\n"))
            sent.mutate { $0 = true }

            #expect(lone.readResponse()?.id == .int(999_999))
            for c in flooders { for _ in 1...200 { #expect(c.readResponse()?.result != nil) } }
            let handled = turns.value
            let firstTurn = try #require(handled.first?.turn)
            let loneTurn = try #require(handled.first { $0.id == .int(999_999) }?.turn)
            #expect(loneTurn - firstTurn <= 2, "served \(loneTurn - firstTurn) turns into the flood")
            let lastTurn = try #require(handled.last?.turn)
            #expect(lastTurn - firstTurn >= 20)
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
