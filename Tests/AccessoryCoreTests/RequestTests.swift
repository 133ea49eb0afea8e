import AccessoryConfig
import AccessoryCore
import AccessorySimulator
import AccessoryTestSupport
import ControlProtocol
import Glibc
import IOLoop
import Testing

@Suite("accessory requests")
struct RequestTests {
    static let echoYAML = """
        accessories:
          - name: echo
            path: {sim:echo}
            framing: {type: line, delimiter: "\\n"}
            response: {timeout_ms: 1000}
            resync: {settle_ms: 50}
            reconnect: {initial_ms: 20, max_ms: 200}
        """

    /// A harness with one accessory, `slow`, that answers each line after 300 ms (timeout 2 s).
    static func slowAccessory(queueDepth: Int? = nil) throws -> CoreHarness {
        var sim = SimulatorConfiguration(name: "slow")
        sim.responseDelay = .milliseconds(300)
        let limits = queueDepth.map { "limits: {queue_depth: \($0)}\n" } ?? ""
        let yaml =
            limits + """
                accessories:
                  - name: slow
                    path: {sim:slow}
                    framing: {type: line, delimiter: "\\n"}
                    response: {timeout_ms: 2000}
                """
        let h = try CoreHarness(sims: ["slow": sim], yaml: yaml)
        #expect(h.waitReady("slow"))
        return h
    }

    @Test("transact on an echo accessory returns its own payload")
    func transactEcho() throws {
        let h = try CoreHarness(sims: ["echo": SimulatorConfiguration(name: "echo")], yaml: Self.echoYAML)
        #expect(h.waitReady("echo"))
        let c = RecordingOrigin(clientID: 1)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"echo","data":"hello"}}"#, from: c)
        let r = c.response(1)
        #expect(frameTexts(r?.value) == ["hello"])
    }

    @Test("single file: 16 clients × 200 transactions each, every reply carries its own request's payload")
    func singleFileUnderConcurrency() throws {
        // A 10 s answer timeout: this test is about order, and on a loaded machine (CI beside
        // other builds) 16 busy threads can hold a reply past the usual 1 s; an error answer would
        // count as a mismatch without any reply having crossed.
        let yaml = Self.echoYAML.replacingOccurrences(of: "timeout_ms: 1000", with: "timeout_ms: 10000")
        let h = try CoreHarness(sims: ["echo": SimulatorConfiguration(name: "echo")], yaml: yaml)
        #expect(h.waitReady("echo"))
        let perClient = 200
        let clients = (0..<16).map { RecordingOrigin(clientID: UInt64($0 + 1)) }
        let mismatches = Shared(0)
        let missing = Shared(0)
        // Each client is a thread doing request → response, as a real client does; 16 of them at
        // once keep the accessory's queue busy and interleaved.
        let threads = clients.enumerated().map { (i, c) in
            TestThread {
                for n in 0..<perClient {
                    h.request(
                        #"{"jsonrpc":"2.0","id":\#(n),"method":"transact","params":{"device":"echo","data":"c\#(i)-r\#(n)"}}"#,
                        from: c
                    )
                    guard let r = c.response(Int64(n), seconds: 30) else {
                        missing.mutate { $0 += 1 }
                        continue
                    }
                    if frameTexts(r.value) != ["c\(i)-r\(n)"] { mismatches.mutate { $0 += 1 } }
                }
            }
        }
        for t in threads { t.join() }
        #expect(missing.value == 0)
        #expect(mismatches.value == 0)
        for c in clients { #expect(c.duplicates == 0) }
    }

    @Test("late reply: the request times out (1003), the queue resyncs, the next request gets its own answer")
    func lateReplyResync() throws {
        var sim = SimulatorConfiguration(name: "late")
        // Every second reply is late (after the 300 ms timeout); the others are prompt.
        sim.faults = FaultSwitches(lateBy: .milliseconds(500), lateEvery: 2)
        let yaml = """
            accessories:
              - name: late
                path: {sim:late}
                framing: {type: line, delimiter: "\\n"}
                response: {timeout_ms: 300}
                resync: {settle_ms: 400}
            """
        let h = try CoreHarness(sims: ["late": sim], yaml: yaml)
        #expect(h.waitReady("late"))
        let c = RecordingOrigin(clientID: 1)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"late","data":"first"}}"#, from: c)
        h.request(#"{"jsonrpc":"2.0","id":2,"method":"transact","params":{"device":"late","data":"second"}}"#, from: c)
        h.request(#"{"jsonrpc":"2.0","id":3,"method":"transact","params":{"device":"late","data":"third"}}"#, from: c)
        #expect(frameTexts(c.response(1)?.value) == ["first"])
        #expect(c.response(2)?.errorCode == .timedOut)
        // Without the resync, "second" (arriving late) would be taken as the answer to "third".
        #expect(frameTexts(c.response(3)?.value) == ["third"])
    }

    @Test("a short timeout after a long one expires on time (the accessory's one deadline timer moves earlier)")
    func shortTimeoutAfterLongOne() throws {
        var sim = SimulatorConfiguration(name: "late")
        sim.faults = FaultSwitches(lateBy: .milliseconds(600), lateEvery: 2)  // the 2nd reply is late
        let yaml = """
            accessories:
              - name: late
                path: {sim:late}
                framing: {type: line, delimiter: "\\n"}
                resync: {settle_ms: 50}
            """
        let h = try CoreHarness(sims: ["late": sim], yaml: yaml)
        #expect(h.waitReady("late"))
        let c = RecordingOrigin(clientID: 1)
        let long =
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"late","data":"a","timeout_ms":5000}}"#
        h.request(long, from: c)
        #expect(frameTexts(c.response(1)?.value) == ["a"])
        // Its deadline timer is still set for 5 s; this one must give up after 200 ms, before the
        // late reply (600 ms) could answer it.
        h.request(
            #"{"jsonrpc":"2.0","id":2,"method":"transact","params":{"device":"late","data":"b","timeout_ms":200}}"#,
            from: c
        )
        #expect(c.response(2)?.errorCode == .timedOut)
    }

    @Test("unknown device → 1001; absent device → 1002 (fast), unless the client waits")
    func unknownAndAbsent() throws {
        let yaml = """
            accessories:
              - name: ghost
                path: /tmp/accessoryd-no-such-device-\(getpid())
                reconnect: {initial_ms: 50, max_ms: 100}
            """
        let h = try CoreHarness(sims: [:], yaml: yaml)
        let c = RecordingOrigin(clientID: 1)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"nope","data":"x"}}"#, from: c)
        #expect(c.response(1)?.errorCode == .unknownDevice)
        #expect(Wait.until { h.state("ghost") == .absent })
        h.request(#"{"jsonrpc":"2.0","id":2,"method":"transact","params":{"device":"ghost","data":"x"}}"#, from: c)
        #expect(c.response(2)?.errorCode == .deviceUnavailable)
        h.request(
            #"{"jsonrpc":"2.0","id":3,"method":"transact","params":{"device":"ghost","data":"x","wait_ms":100}}"#,
            from: c
        )
        #expect(c.response(3)?.errorCode == .timedOut)
    }

    @Test("the pty disappears mid-request → 1005 device removed; the accessory comes back by itself")
    func removedMidRequestAndReplug() throws {
        var sim = SimulatorConfiguration(name: "flaky")
        sim.faults = FaultSwitches(hangupAfter: 1, reappearAfter: .milliseconds(200))
        let yaml = """
            accessories:
              - name: flaky
                path: {sim:flaky}
                framing: {type: line, delimiter: "\\n"}
                response: {timeout_ms: 3000}
                reconnect: {initial_ms: 20, max_ms: 100}
            """
        let h = try CoreHarness(sims: ["flaky": sim], yaml: yaml)
        #expect(h.waitReady("flaky"))
        let c = RecordingOrigin(clientID: 1)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"flaky","data":"one"}}"#, from: c)
        #expect(frameTexts(c.response(1)?.value) == ["one"])
        // The simulator hangs up instead of answering the second request.
        h.request(#"{"jsonrpc":"2.0","id":2,"method":"transact","params":{"device":"flaky","data":"two"}}"#, from: c)
        #expect(c.response(2)?.errorCode == .deviceRemoved)
        #expect(h.waitReady("flaky"), "reopened after the simulator reappeared")
        h.request(#"{"jsonrpc":"2.0","id":3,"method":"transact","params":{"device":"flaky","data":"three"}}"#, from: c)
        #expect(frameTexts(c.response(3)?.value) == ["three"])
    }

    @Test("a full queue answers 1007; cancel by id answers 1004 and {cancelled: true}")
    func queueFullAndCancel() throws {
        let h = try Self.slowAccessory(queueDepth: 2)
        let c = RecordingOrigin(clientID: 1)
        for i in 1...3 {
            h.request(
                #"{"jsonrpc":"2.0","id":\#(i),"method":"transact","params":{"device":"slow","data":"m\#(i)"}}"#,
                from: c
            )
        }
        #expect(c.response(3)?.errorCode == .queueFull)
        h.request(#"{"jsonrpc":"2.0","id":9,"method":"cancel","params":{"id":2}}"#, from: c)
        #expect(c.response(9)?.value?["cancelled"] == .bool(true))
        #expect(c.response(2)?.errorCode == .cancelled)
        #expect(frameTexts(c.response(1)?.value) == ["m1"])
        h.request(#"{"jsonrpc":"2.0","id":10,"method":"cancel","params":{"id":77}}"#, from: c)
        #expect(c.response(10)?.value?["cancelled"] == .bool(false))
    }

    @Test("an id in use by a request in progress is refused; that request goes on, and the id is free once it answers")
    func idInUse() throws {
        let h = try Self.slowAccessory()
        let c = RecordingOrigin(clientID: 1)
        func transact(_ text: String) {
            h.request(
                #"{"jsonrpc":"2.0","id":5,"method":"transact","params":{"device":"slow","data":"\#(text)"}}"#,
                from: c
            )
        }
        transact("first")
        transact("second")
        #expect(c.response(5)?.errorCode == .invalidRequest)
        #expect(Wait.until(seconds: 5) { frameTexts(c.response(5, seconds: 0)?.value) == ["first"] })
        #expect(c.duplicates == 1)
        transact("third")
        #expect(Wait.until(seconds: 5) { frameTexts(c.response(5, seconds: 0)?.value) == ["third"] })
        #expect(Wait.until(seconds: 2) { Wait.onLoop(h.loop) { [r = h.registry] in r.inflightCount } == 0 })
    }

    @Test("AT modem: a multi-line reply ends at the final result; RING goes to subscribers")
    func modemUntilAndUnsolicited() throws {
        var sim = SimulatorConfiguration(name: "modem", personality: .atModem, terminator: .crlf)
        sim.unsolicitedInterval = .milliseconds(100)
        let yaml = """
            accessories:
              - name: modem
                path: {sim:modem}
                framing: {type: line, delimiter: "\\r\\n", terminator: "\\r\\n"}
                response: {until: '^(OK|ERROR|\\+CME ERROR.*)$', timeout_ms: 2000}
                unsolicited: ['^RING$', '^\\+CMTI: .*']
            """
        let h = try CoreHarness(sims: ["modem": sim], yaml: yaml)
        #expect(h.waitReady("modem"))
        let c = RecordingOrigin(clientID: 1)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"device":"modem"}}"#, from: c)
        #expect(c.response(1)?.value?["subscribed"] == .bool(true))
        h.request(#"{"jsonrpc":"2.0","id":2,"method":"transact","params":{"device":"modem","data":"ATI"}}"#, from: c)
        let frames = frameTexts(c.response(2)?.value)
        #expect(frames.last == "OK")
        #expect(frames.count >= 2, "identity lines before OK: \(frames)")
        #expect(!frames.contains("RING"), "unsolicited lines never land in a transaction")
        #expect(Wait.until { c.notifications.contains { String(decoding: $0, as: UTF8.self).contains("device.data") } })
        h.request(
            #"{"jsonrpc":"2.0","id":3,"method":"transact","params":{"device":"modem","data":"AT+CMGR=99"}}"#,
            from: c
        )
        #expect(frameTexts(c.response(3)?.value).last?.hasPrefix("+CME ERROR") == true)
    }
}
