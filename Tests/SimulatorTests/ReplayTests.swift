import AccessoryTestSupport
import IOLoop
import Testing
import TrafficTrace
import Transports

@testable import AccessorySimulator

/// The `replay` personality: matching (in recorded order, rules, strict and lenient), and a
/// recording played on a pty at its recorded delays.
///
/// Threading: each test runs on its test thread; the pty tests own a spawned loop.
@Suite struct ReplayTests {
    /// `AT` answered `OK` then `ERROR`; `AT+CCLK="…"` once; `ATI` never answered (a timeout); a
    /// `RING` before any request and one 30 ms after `ATI`.
    static let recording = Recording(
        device: "modem",
        entries: [
            RecordingEntry(line: 2, timeMicroseconds: 0, kind: .rx(replyTo: nil), bytes: bytes("RING\r\n")),
            RecordingEntry(line: 3, timeMicroseconds: 10_000, kind: .tx(client: 1, request: "1"), bytes: bytes("AT\r")),
            RecordingEntry(line: 4, timeMicroseconds: 30_000, kind: .rx(replyTo: 1), bytes: bytes("\r\nOK\r\n")),
            RecordingEntry(line: 5, timeMicroseconds: 40_000, kind: .tx(client: 1, request: "2"), bytes: bytes("AT\r")),
            RecordingEntry(line: 6, timeMicroseconds: 45_000, kind: .rx(replyTo: 3), bytes: bytes("\r\nERROR\r\n")),
            RecordingEntry(
                line: 7,
                timeMicroseconds: 50_000,
                kind: .tx(client: 1, request: "3"),
                bytes: bytes("AT+CCLK=\"24/06/01,12:00:00\"\r")
            ),
            RecordingEntry(line: 8, timeMicroseconds: 51_000, kind: .rx(replyTo: 5), bytes: bytes("\r\nOK\r\n")),
            RecordingEntry(
                line: 9,
                timeMicroseconds: 60_000,
                kind: .tx(client: 1, request: "4"),
                bytes: bytes("ATI\r")
            ),
            RecordingEntry(line: 10, timeMicroseconds: 90_000, kind: .rx(replyTo: nil), bytes: bytes("RING\r\n")),
        ]
    )

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func replies(_ matcher: ReplayMatcher, _ outcome: ReplayOutcome) -> String {
        guard case .matched(let index, _) = outcome else { return "mismatch" }
        return String(decoding: matcher.exchanges[index].replies.flatMap(\.bytes), as: UTF8.self)
    }

    @Test func theSameRequestGetsItsRecordedRepliesInOrderThenTheLastAgain() {
        var matcher = ReplayMatcher(recording: Self.recording, options: ReplayOptions())
        #expect(matcher.delimiter == UInt8(ascii: "\r"))
        #expect(Self.replies(matcher, matcher.match(Self.bytes("AT\r"))) == "\r\nOK\r\n")
        #expect(Self.replies(matcher, matcher.match(Self.bytes("AT\r"))) == "\r\nERROR\r\n")
        let third = matcher.match(Self.bytes("AT\r"))
        #expect(third == .matched(1, repeated: true))
        #expect(matcher.unaskedLines == [7, 9])
        // A request recorded without an answer (a timeout) is answered with nothing.
        #expect(Self.replies(matcher, matcher.match(Self.bytes("ATI\r"))) == "")
        #expect(
            matcher.exchanges[3].followers == [TimedChunk(offsetMicroseconds: 30_000, bytes: Self.bytes("RING\r\n"))]
        )
    }

    @Test func askingMoreOftenThanRecordedCanBeAMismatch() {
        var matcher = ReplayMatcher(recording: Self.recording, options: ReplayOptions(afterLast: .mismatch))
        _ = matcher.match(Self.bytes("AT\r"))
        _ = matcher.match(Self.bytes("AT\r"))
        guard case .mismatch(let expected, _, let reason) = matcher.match(Self.bytes("AT\r")) else {
            Issue.record("a third AT matched")
            return
        }
        #expect(reason == "asked 3 times; the recording has it 2 times")
        #expect(expected.map { matcher.exchanges[$0].line } == 7)
    }

    @Test func aChangedRequestIsAMismatchNamingTheExpectedLineUnlessARuleCoversIt() {
        var strict = ReplayMatcher(recording: Self.recording, options: ReplayOptions())
        _ = strict.match(Self.bytes("AT\r"))
        _ = strict.match(Self.bytes("AT\r"))
        let changed = Self.bytes("AT+CCLK=\"26/11/28,16:00:00\"\r")
        guard case .mismatch(let expected, let nearest, _) = strict.match(changed) else {
            Issue.record("a changed clock matched without a rule")
            return
        }
        #expect(expected.map { strict.exchanges[$0].line } == 7)
        #expect(nearest.map { strict.exchanges[$0].line } == 7)

        let rule = ReplayRule(pattern: #"AT\+CCLK="[^"]*"\r"#, line: 1)
        var ruled = ReplayMatcher(recording: Self.recording, options: ReplayOptions(rules: [rule]))
        #expect(Self.replies(ruled, ruled.match(changed)) == "\r\nOK\r\n")
        #expect(throws: SimulatorError.self) { try ReplayMatcher.check([ReplayRule(pattern: "(", line: 3)]) }
    }

    @Test func paceScalesDelays() {
        #expect(ReplayOptions.Pace(argument: "x2")?.scale(microseconds: 10_000) == .milliseconds(5))
        #expect(ReplayOptions.Pace(argument: "fast")?.scale(microseconds: 10_000) == .zero)
        #expect(ReplayOptions.Pace(argument: "recorded")?.scale(microseconds: 10_000) == .milliseconds(10))
        #expect(ReplayOptions.Pace(argument: "x0") == nil)
        #expect(ReplayOptions.Pace(argument: "slow") == nil)
    }

    @Test func aRecordingPlaysOnAPtyAtItsDelaysAndStrictModeAnswersNothingToAMismatch() throws {
        let messages = Shared<[String]>([])
        let ledger = ReplayLedger { message in messages.mutate { $0.append(message) } }
        let options = ReplayOptions(unsolicitedClock: .request)
        let plan = ReplayPlan(recording: Self.recording, options: options, file: "modem.jsonl", ledger: ledger)
        try withSimulator(SimulatorConfiguration(personality: .replay(plan))) { sim, _ in
            let client = try SlaveClient(path: sim.currentSlavePath!)
            #expect(try client.read(through: "RING\r\n") == "RING\r\n")
            let start = SlaveClient.now()
            try client.write("AT\r")
            #expect(try client.read(through: "OK\r\n") == "\r\nOK\r\n")
            // Recorded 20 ms after the request.
            #expect(SlaveClient.now() - start >= 0.019)
            try client.write("AT+CSQ\r")
            #expect(client.drain(seconds: 0.1).isEmpty)
            try client.write("AT\r")
            #expect(try client.read(through: "ERROR\r\n") == "\r\nERROR\r\n")
        }
        let report = ledger.report
        #expect(report.matched == 2)
        #expect(report.mismatched == 1)
        #expect(report.unaskedLines == [7, 9])
        #expect(report.framesPlayed == 3)
        #expect(messages.value.count == 1)
        #expect(messages.value.first?.contains("\"AT+CSQ\\r\" not in the recording") == true)
        #expect(messages.value.first?.contains("modem.jsonl line 5") == true)
    }

    @Test func lenientModeAnswersAMismatchWithTheNearestRequestsReply() throws {
        let ledger = ReplayLedger()
        let options = ReplayOptions(pace: .fast, unsolicitedClock: .request, lenient: true)
        let plan = ReplayPlan(recording: Self.recording, options: options, file: "modem.jsonl", ledger: ledger)
        try withSimulator(SimulatorConfiguration(personality: .replay(plan))) { sim, _ in
            let client = try SlaveClient(path: sim.currentSlavePath!)
            #expect(try client.read(through: "RING\r\n") == "RING\r\n")
            try client.write("AT+CCLK=\"26/11/28,16:00:00\"\r")
            #expect(try client.read(through: "OK\r\n").hasSuffix("\r\nOK\r\n"))
        }
        #expect(ledger.report.mismatched == 1)
        #expect(ledger.report.matched == 0)
    }

    /// DTR down, RTS down, a break, DTR up again, as `control` requests made them; and `AT`.
    static let linesRecording = Recording(
        device: "board",
        entries: [
            RecordingEntry(line: 2, timeMicroseconds: 0, kind: .control(.dtr(false), client: 1)),
            RecordingEntry(line: 3, timeMicroseconds: 1_000, kind: .control(.rts(false), client: 1)),
            RecordingEntry(line: 4, timeMicroseconds: 2_000, kind: .control(.breakSent(milliseconds: 20), client: 1)),
            RecordingEntry(line: 5, timeMicroseconds: 3_000, kind: .control(.dtr(true), client: 1)),
            RecordingEntry(line: 6, timeMicroseconds: 4_000, kind: .tx(client: 1, request: "1"), bytes: bytes("AT\r")),
            RecordingEntry(line: 7, timeMicroseconds: 5_000, kind: .rx(replyTo: 4), bytes: bytes("\r\nOK\r\n")),
        ]
    )

    /// What the program did to its lines, as the stand-in reports it.
    enum LineEvent {
        case lines(_ dtr: Bool, _ rts: Bool)
        /// A break this many milliseconds long (its start and its end).
        case breakOf(Int)
    }

    static func replayLines(_ events: [LineEvent], lenient: Bool = false) -> (ReplayReport, [String]) {
        let messages = Shared<[String]>([])
        let ledger = ReplayLedger { message in messages.mutate { $0.append(message) } }
        var options = ReplayOptions()
        options.lenient = lenient
        let plan = ReplayPlan(recording: Self.linesRecording, options: options, file: "board.jsonl", ledger: ledger)
        var responder = ReplayResponder(plan: plan, maxLength: 1024)
        var now = LoopInstant(nanoseconds: 0)
        for event in events {
            now = now + .milliseconds(1)
            switch event {
            case .lines(let dtr, let rts): _ = responder.linesChanged(ModemLineReport(dtr: dtr, rts: rts), at: now)
            case .breakOf(let ms):
                _ = responder.breakChanged(LineBreakReport(on: true), at: now)
                now = now + .milliseconds(ms)
                _ = responder.breakChanged(LineBreakReport(on: false), at: now)
            }
        }
        return (ledger.report, messages.value)
    }

    @Test func theProgramsLineChangesAreComparedWithTheRecordedOnes() {
        // The report a port makes as it opens (both up) changes nothing; then the recorded four.
        let (same, quiet) = Self.replayLines([
            .lines(true, true), .lines(false, true), .lines(false, false), .breakOf(20), .lines(true, false),
        ])
        #expect(same.lineChangesMatched == 4)
        #expect(same.mismatched == 0 && same.lineChangesMismatched == 0 && same.unperformedLineChanges.isEmpty)
        #expect(quiet.isEmpty)

        // RTS first instead of DTR: a mismatch naming the recorded line; the rest still lines up.
        let (swapped, said) = Self.replayLines([
            .lines(true, false), .lines(false, false), .breakOf(20), .lines(true, false),
        ])
        #expect(swapped.mismatched == 1 && swapped.lineChangesMismatched == 1 && swapped.lineChangesMatched == 3)
        #expect(swapped.mismatches.first?.expectedLine == 2)
        #expect(said.first?.contains("board.jsonl line 2") == true, "\(said)")

        // One change never made, one more than recorded.
        let (short, _) = Self.replayLines([.lines(false, true)])
        #expect(short.unperformedLineChanges == [3, 4, 5])
        let (long, _) = Self.replayLines([
            .lines(false, true), .lines(false, false), .breakOf(20), .lines(true, false), .lines(true, true),
        ])
        #expect(long.mismatched == 1 && long.mismatches.first?.expectedLine == nil)
        #expect(long.json().count > 0 && short.summaryLines().contains { $0.contains("line changes") })
    }

    @Test func theProgramsBreaksAreComparedWithTheRecordedOnes() {
        // Within the tolerance (the larger of 50 ms and half the recorded length): a match.
        let (near, _) = Self.replayLines([.lines(false, true), .lines(false, false), .breakOf(65), .lines(true, false)])
        #expect(near.lineChangesMatched == 4 && near.mismatched == 0)

        // Far longer than recorded: a mismatch naming the recorded break's line.
        let (long, said) = Self.replayLines([
            .lines(false, true), .lines(false, false), .breakOf(250), .lines(true, false),
        ])
        #expect(long.mismatched == 1 && long.mismatches.first?.expectedLine == 4, "\(long.mismatches)")
        #expect(
            said.first?.contains("a break of 250 ms differs from the recording; expected a break of 20 ms") == true,
            "\(said)"
        )

        // No break: DTR going up is compared with the recorded break, and its own line is left.
        let (none, _) = Self.replayLines([.lines(false, true), .lines(false, false), .lines(true, false)])
        #expect(none.mismatched == 1 && none.mismatches.first?.expectedLine == 4)
        #expect(none.unperformedLineChanges == [5])
    }
}
