import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// SIGTERM with requests in flight: every request gets exactly one reply before the daemon
/// closes the connection, and the daemon exits 0.
///
/// Threading: the test's thread; it owns the daemon, the simulator and the clients.
@Suite struct ShutdownTests {
    @Test func sigtermAnswersEveryRequestInFlightThenExitsZero() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("slow", ["--personality", "echo", "--delay-ms", "400"])
        try s.startDaemon(accessories: [s.lineAccessory("slow")])
        let first = try s.connect()
        let second = try s.connect()
        let observer = try s.connect()
        var sent: [(RPCClient, RequestID, String)] = []
        for (index, client) in [first, second].enumerated() {
            for n in 0..<3 {
                let payload = "client \(index) request \(n)"
                sent.append((client, try client.send("transact", Params.transfer("slow", payload)), payload))
            }
        }
        guard try waitForStatus(observer, "slow", seconds: 10, { $0["queue_depth"] == 6 }) else {
            throw HarnessError("the six requests were never queued")
        }

        let termination = s.stopDaemon()
        #expect(termination == .exited(0))
        for client in [first, second] {
            // Everything the daemon wrote before closing is still readable.
            let messages = try client.messages(during: 5)
            #expect(client.closedByPeer, "the daemon closed the connection")
            let responses = messages.compactMap { m -> Response? in
                if case .response(let r) = m { return r }
                return nil
            }
            let mine = sent.filter { $0.0 === client }
            #expect(responses.count == mine.count, "\(responses)")
            for (_, id, payload) in mine {
                let answers = responses.filter { $0.id == id }
                #expect(answers.count == 1, "request \(id): \(answers)")
                guard let answer = answers.first else { continue }
                // Answered by the accessory before the stop, or told the daemon is stopping.
                if let frames = answer.frameTexts {
                    #expect(frames == [payload])
                } else {
                    #expect(answer.code == 1002, "\(answer)")
                }
            }
        }
        #expect(s.log.contains("stopping"))
        first.close()
        second.close()
        observer.close()
    }
}
