import AccessoryConfig
import AccessoryTestSupport
import ControlProtocol
import SystemCalls
import Testing
import TrafficTrace

@testable import AccessoryCore

/// `control` in the traffic: each DTR or RTS set and each break a `control` request makes is a
/// `control` record of `device.traffic` and of a `jsonl` trace file, which reads back as a
/// recording (docs/trace.md, docs/replay.md). The lines are a pretend UART's
/// (``LineControlTests/PretendUART``): a pty has none.
@Suite("traffic: control records")
struct ControlTrafficTests {
    @Test("DTR, RTS and a break set by control requests are traffic records naming the client and request")
    func controlRecords() throws {
        let h = try LineControlTests.harness()
        let file = h.dir + "/echo.trace"
        _ = try h.reload(LineControlTests.yaml + "\n    trace: {file: \(file), format: jsonl}\n")
        #expect(h.waitReady("echo"))
        let uart = LineControlTests.PretendUART(h)
        defer { uart.remove() }
        let watcher = RecordingOrigin(clientID: 1)
        h.request(
            #"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"device":"echo","events":["traffic"]}}"#,
            from: watcher
        )
        #expect(watcher.response(1)?.value?["subscribed"] == .bool(true))
        let c = RecordingOrigin(clientID: 5)
        #expect(LineControlTests.control(h, #""dtr":false"#, id: 10, from: c)?.value != nil)
        #expect(LineControlTests.control(h, #""rts":false,"break_ms":20"#, id: 11, from: c)?.value != nil)
        #expect(
            LineControlTests.control(h, #""sequence":[{"dtr":true,"rts":true,"ms":5}]"#, id: 12, from: c)?.value != nil
        )
        let expected: [(LineControl, RequestID)] = [
            (.dtr(false), .int(10)), (.rts(false), .int(11)), (.breakSent(milliseconds: 20), .int(11)),
            (.dtr(true), .int(12)), (.rts(true), .int(12)),
        ]
        func controls() -> [TrafficRecord] {
            TrafficTests.records(watcher.notifications).filter { $0.direction == .control }
        }
        #expect(Wait.until { controls().count >= expected.count })
        let records = controls()
        #expect(records.map(\.control) == expected.map(\.0))
        #expect(records.map(\.request) == expected.map(\.1))
        #expect(records.allSatisfy { $0.client == 5 && $0.device == "echo" })

        let r = h.registry
        _ = Wait.onLoop(h.loop) { r.accessory(named: "echo")?.stopTraceFile() }
        #expect(TraceWriter.awaitFinishing(within: .seconds(10)))
        let recording = try RecordingFile.read(path: file)
        let recorded = recording.entries.compactMap { entry -> LineControl? in
            guard case .control(let change, let client) = entry.kind, client == 5 else { return nil }
            return change
        }
        #expect(recorded == expected.map(\.0), "the trace file reads back as a recording with the same controls")
    }
}
