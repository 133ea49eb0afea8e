import JSONCodec
import Testing

@testable import ControlProtocol

/// SLIP, COBS, length-prefixed and idle-gap framing through the built daemon, against
/// `accessory-sim` personalities that echo frames. Per framing, two simulators: `split` writes
/// each answer in two halves 30 ms apart (`--split-ms 30`), so the daemon reads one frame in two
/// pieces; `big` answers with the payload twice (`--reply-repeat 2`), so a request of more than
/// half the 64-byte frame limit gets an answer over it.
///
/// Threading: each test runs on its own test thread and owns its scenario's processes.
@Suite struct FramingTests {
    /// One framing: the simulator's arguments and the accessory's `framing:` without its closing
    /// brace (the limit is added).
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let simulator: [String]
        let framing: String
        var testDescription: String { name }
    }

    static let cases = [
        Case(name: "slip", simulator: ["--personality", "framed", "--framing", "slip"], framing: "{type: slip"),
        Case(name: "cobs", simulator: ["--personality", "framed", "--framing", "cobs"], framing: "{type: cobs"),
        Case(
            name: "length_prefixed",
            simulator: ["--personality", "framed", "--framing", "length-prefixed"],
            framing: "{type: length_prefixed, width: 2, endian: big"
        ),
        // A raw echo; the 30 ms pause inside an answer is well under the 300 ms gap that ends it.
        Case(
            name: "idle_gap",
            simulator: ["--personality", "echo", "--terminator", "none"],
            framing: "{type: idle_gap, gap_ms: 300"
        ),
    ]

    @Test(arguments: cases)
    func aFrameSplitAcrossReadsArrivesWhole(_ c: Case) throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("split", c.simulator + ["--split-ms", "30"])
        try s.startDaemon(accessories: [s.lineAccessory("split", framing: c.framing + ", max_frame_bytes: 64}")])
        let client = try s.connect()
        defer { client.close() }

        // Bytes that SLIP and COBS must escape or stuff.
        let payload: [UInt8] = [0x41, 0xC0, 0xDB, 0x00, 0xDC, 0xDD, 0x00, 0x42]
        for round in 1...3 {
            let answer = try client.call("transact", binary("split", payload))
            let frames = try #require(answer.result?["frames"]?.arrayValue, "round \(round): \(answer)")
            #expect(frames.count == 1, "the two halves make one frame")
            #expect(frames.first?["data_base64"]?.stringValue == Base64.encodedString(payload))
        }
        let counters = try #require(try client.result("device.status", Params.device("split"))["counters"])
        #expect(counters["frames_in"] == 3, "one frame per answer, not one per read")
        #expect(counters["frames_dropped"] == 0)
        #expect(counters["requests_ok"] == 3)
    }

    @Test(arguments: cases)
    func anOversizeAnswerFailsAtOnceWithTheReasonAndLosesNothing(_ c: Case) throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("big", c.simulator + ["--reply-repeat", "2"])
        try s.startDaemon(accessories: [
            s.lineAccessory("big", framing: c.framing + ", max_frame_bytes: 64}", "response: {timeout_ms: 5000}")
        ])
        let client = try s.connect()
        defer { client.close() }
        #expect(try client.call("transact", Params.transfer("big", "small")).frameTexts == ["smallsmall"])

        // 40 bytes out, 80 back: over the 64-byte limit. The request fails at once with the reason,
        // long before its 5 s timeout.
        let watch = Stopwatch()
        let oversize = try client.call("transact", Params.transfer("big", String(repeating: "x", count: 40)))
        let failedAfter = watch.elapsed
        #expect(oversize.code == ErrorCode.ioError.rawValue, "got \(oversize)")
        let message = oversize.error?.message ?? ""
        #expect(message.contains("64-byte limit") && message.contains("max_frame_bytes"), "\(message)")
        #expect(failedAfter < 4, "failed after \(failedAfter) s: it waited for its timeout")

        // Nothing is lost for the next requests: each gets its own answer (after the accessory has
        // discarded whatever was left of the oversize one, however long it takes to).
        let next = try client.call("transact", Params.transfer("big", "next", waitMs: 10_000), seconds: 20)
        #expect(next.frameTexts == ["nextnext"], "got \(next)")
        let again = try client.call("transact", Params.transfer("big", "again"), seconds: 20)
        #expect(again.frameTexts == ["againagain"], "got \(again)")

        let counters = try #require(try client.result("device.status", Params.device("big"))["counters"])
        #expect(counters["frames_dropped"] == 1)
        #expect(counters["requests_failed"] == 1)
        #expect(counters["requests_ok"] == 3)
        #expect(counters["requests_timed_out"] == 0)
    }

    private func binary(_ device: String, _ bytes: [UInt8]) -> JSONValue {
        ["device": .string(device), "data_base64": .string(Base64.encodedString(bytes))]
    }
}
