import AccessoryTestSupport
import ControlProtocol
import JSONCodec
import Testing
import TrafficTrace

/// Control lines, recorded and replayed end to end (docs/replay.md, "Matching"): a client
/// lowers DTR, then RTS with a break, raises DTR and sends `AT` to a simulated modem through the
/// daemon while `accessoryctl record` records; a daemon whose accessory is the replay
/// (`simulate: {personality: replay}`) sees the same client make the same changes, the break
/// included, through its line stand-in, and the replay's report says they matched; a client
/// that lowers RTS before DTR, or sends no break, fails the replay, naming the recorded line.
///
/// Threading: each test runs on its own test thread and owns its scenarios and processes.
@Suite(.serialized) struct ReplayLinesTests {
    /// The client's session: the line changes (DTR first, or RTS first), a break (unless
    /// `withBreak` is false), and `AT`.
    static func drive(_ s: Scenario, dtrFirst: Bool, withBreak: Bool = true) throws {
        let client = try s.connect()
        defer { client.close() }
        func control(_ members: JSONObject) throws {
            var params: JSONObject = ["device": "modem"]
            for member in members { params.append(member.key, member.value) }
            _ = try client.result("control", .object(params))
        }
        try control([dtrFirst ? "dtr" : "rts": .bool(false)])
        var second: JSONObject = [dtrFirst ? "rts" : "dtr": .bool(false)]
        if withBreak { second.append("break_ms", .int(20)) }
        try control(second)
        try control(["dtr": .bool(true)])
        _ = try client.result("transact", Params.transfer("modem", "AT"))
    }

    /// Replays `recording` through a daemon while `drive` runs; returns the replay's report.
    static func replayed(_ recording: String, dtrFirst: Bool, withBreak: Bool = true, name: String) throws -> JSONValue
    {
        let s = try Scenario()
        defer { s.finish() }
        let report = s.directory.file("\(name).report.json")
        let source = "simulate: {personality: replay, file: \(recording), report: \(report)}"
        try s.startDaemon(accessories: [ReplayModemTests.modem(s, source: source)], ready: ["modem"])
        try drive(s, dtrFirst: dtrFirst, withBreak: withBreak)
        _ = s.stopDaemon()
        // The replay writes its report as it ends, with the daemon.
        #expect(Wait.until(seconds: 15) { TemporaryDirectory.contents(of: report).hasSuffix("\n") })
        return try JSONParser.parse(Array(TemporaryDirectory.contents(of: report).utf8))
    }

    @Test func lineChangesAndABreakAreRecordedAndAChangedOneFailsTheReplay() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.startDaemon(
            accessories: [ReplayModemTests.modem(s, source: "simulate: {personality: at-modem}")],
            ready: ["modem"]
        )
        let recording = s.directory.file("lines.recording")
        let recorder = try ReplayModemTests.startRecorder(in: s, to: recording)
        defer { recorder.kill() }
        try Self.drive(s, dtrFirst: true)
        #expect(
            Wait.until(seconds: 10) {
                guard let read = try? Recordings.read(recording) else { return false }
                return Recordings.session(read).exchanges.last?.reply.hasSuffix("OK\\r\\n") == true
            }
        )
        #expect(recorder.terminate() == .exited(0), "\(recorder.stderr)")
        let read = try Recordings.read(recording)
        let controls = read.entries.compactMap { entry -> (LineControl, Int)? in
            guard case .control(let change, _) = entry.kind else { return nil }
            return (change, entry.line)
        }
        #expect(
            controls.map(\.0) == [.dtr(false), .rts(false), .breakSent(milliseconds: 20), .dtr(true)],
            "\(controls)"
        )

        let same = try Self.replayed(recording, dtrFirst: true, name: "same")
        #expect(
            same["line_changes_matched"] == .int(4) && same["mismatched"] == .int(0)
                && same["line_changes_unperformed_lines"] == .array([]) && same["matched"] == .int(1),
            "\(same)"
        )

        let swapped = try Self.replayed(recording, dtrFirst: false, name: "swapped")
        #expect(swapped["mismatched"] == .int(1) && swapped["line_changes_mismatched"] == .int(1), "\(swapped)")
        let firstLine = controls.first.map { Int64($0.1) }
        #expect(
            swapped["mismatches"]?.arrayValue?.first?["expected_line"] == firstLine.map { .integer($0) },
            "\(swapped)"
        )

        // The break reaches the replay through the line stand-in too: without it, a mismatch
        // naming the recorded break's line.
        let unbroken = try Self.replayed(recording, dtrFirst: true, withBreak: false, name: "unbroken")
        let breakLine = controls.first { $0.0 == .breakSent(milliseconds: 20) }.map { Int64($0.1) }
        #expect(unbroken["mismatched"] == .int(1) && unbroken["line_changes_mismatched"] == .int(1), "\(unbroken)")
        #expect(
            unbroken["mismatches"]?.arrayValue?.first?["expected_line"] == breakLine.map { .integer($0) },
            "\(unbroken)"
        )
    }
}
