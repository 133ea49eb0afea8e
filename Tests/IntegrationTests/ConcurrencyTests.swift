import AccessoryTestSupport
import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// Single-file under concurrency: many clients, one echo accessory, every response matches its
/// own request's payload, none lost, none duplicated.
///
/// Threading: the test's thread starts one worker thread per client; each worker owns its client;
/// results meet in a `Locked` tally.
@Suite struct ConcurrencyTests {
    static let clients = 16
    static let transactionsPerClient = 200

    /// What the workers found. Threading: a value behind a `Locked`.
    struct Tally {
        var answered = 0
        var problems: [String] = []
    }

    @Test func sixteenClientsTimesTwoHundredTransactionsOnOneEchoAccessory() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(accessories: [s.lineAccessory("echo")])
        let socketPath = s.socketPath
        let tally = Locked(Tally())
        let stopAt = Deadline(seconds: 45)

        let workers = (0..<Self.clients).map { clientIndex in
            TestThread {
                func problem(_ text: String) { tally.withLock { $0.problems.append("client \(clientIndex): \(text)") } }
                do {
                    let client = try RPCClient(socketPath: socketPath)
                    defer { client.close() }
                    for i in 0..<Self.transactionsPerClient {
                        if stopAt.hasPassed {
                            problem("gave up at transaction \(i): the 45 s budget is spent")
                            return
                        }
                        let payload = "client-\(clientIndex)-request-\(i)-\(UInt32.random(in: 0...UInt32.max))"
                        let id = try client.send("transact", Params.transfer("echo", payload))
                        let response = try client.response(to: id, seconds: 10)
                        if response.frameTexts != [payload] {
                            problem("request \(id) sent \(payload), got \(response)")
                        } else {
                            tally.withLock { $0.answered += 1 }
                        }
                    }
                    // Nothing more may come: no duplicate, no stray answer.
                    let extra = try client.messages(during: 0.05)
                    if !extra.isEmpty || !client.unclaimed.isEmpty {
                        problem("unexpected extra messages: \(extra) \(client.unclaimed)")
                    }
                } catch {
                    problem("\(error)")
                }
            }
        }
        for worker in workers { worker.join() }

        let result = tally.withLock { $0 }
        #expect(result.problems.isEmpty, "\(result.problems.prefix(10))")
        #expect(result.answered == Self.clients * Self.transactionsPerClient)
        let client = try s.connect()
        let counters = try client.result("device.status", Params.device("echo"))["counters"]
        #expect(counters?["requests_ok"]?.intValue == Self.clients * Self.transactionsPerClient)
        #expect(counters?["requests_failed"] == 0)
        #expect(counters?["unsolicited_frames"] == 0)
        client.close()
    }
}
