import IOLoop
import TrafficTrace
import Transports

/// Compares the line changes the replayed program makes (DTR and RTS, and breaks) with the
/// recording's `control` records, in order. The program's changes arrive through the line
/// stand-in: a pty carries no DTR or RTS and does nothing with a break, so the daemon (or any
/// program that talks to the stand-in) reports each change as a ``ModemLineReport`` of both lines
/// and each break's start and end as a ``LineBreakReport`` (docs/replay.md says where the edge is).
///
/// Only changes count: the recording holds every line a `control` set, the stand-in reports the
/// state after each, and both start with DTR and RTS asserted, as a port opens (an `open` in the
/// recording, or a port opened again, comes back to that). The i-th change the program makes is
/// compared with the i-th recorded change: a break with a recorded break whose length is within
/// ``breakTolerance`` of it (the stand-in's two reports are timed on the simulator's loop).
///
/// Threading: a value owned by one ``ReplayResponder``; loop thread only.
struct ReplayLineCheck {
    /// What a change did.
    ///
    /// Threading: a value. Any thread.
    enum Kind: Equatable, CustomStringConvertible {
        /// Both lines after it.
        case lines(ModemLineReport)
        /// A break this many milliseconds long.
        case breakSent(milliseconds: Int64)

        var description: String {
            switch self {
            case .lines(let report): report.description
            case .breakSent(let ms): "a break of \(ms) ms"
            }
        }
    }

    /// A recorded change, and its line in the file.
    ///
    /// Threading: a value. Any thread.
    struct Change: Equatable {
        var kind: Kind
        var line: Int
    }

    /// How one report compared.
    ///
    /// Threading: a value. Any thread.
    enum Outcome: Equatable {
        /// It changed nothing yet (the report a port makes as it opens, a line set to its level,
        /// the start of a break).
        case unchanged
        case matched(Kind)
        /// `got` is not what the recording has next (`expected`), or past its last change (nil).
        case mismatch(got: Kind, expected: Change?)
    }

    static let opened = ModemLineReport(dtr: true, rts: true)

    /// How far a break's length may be from the recorded one: the larger of 50 ms and half of it.
    static func breakTolerance(_ recorded: Int64) -> Int64 { max(50, recorded / 2) }

    let expected: [Change]
    private var next = 0
    private var last = Self.opened
    private var breakStarted: LoopInstant?

    init(recording: Recording) {
        var state = Self.opened
        var changes: [Change] = []
        for entry in recording.entries {
            var after = state
            switch entry.kind {
            case .control(.dtr(let level), _): after.dtr = level
            case .control(.rts(let level), _): after.rts = level
            case .control(.breakSent(let ms), _):
                changes.append(Change(kind: .breakSent(milliseconds: ms), line: entry.line))
                continue
            case .event("open"): after = Self.opened
            default: continue
            }
            guard after != state else { continue }
            changes.append(Change(kind: .lines(after), line: entry.line))
            state = after
        }
        expected = changes
    }

    /// The program's lines are now `lines`.
    mutating func report(_ lines: ModemLineReport) -> Outcome {
        guard lines != last else { return .unchanged }
        last = lines
        return compare(.lines(lines))
    }

    /// The program started or ended a break at `now`; its end is compared.
    mutating func report(_ report: LineBreakReport, at now: LoopInstant) -> Outcome {
        if report.on {
            breakStarted = breakStarted ?? now
            return .unchanged
        }
        guard let started = breakStarted.take() else { return .unchanged }
        return compare(.breakSent(milliseconds: Int64((now - started).nanosecondsClamped / 1_000_000)))
    }

    private mutating func compare(_ got: Kind) -> Outcome {
        guard next < expected.count else { return .mismatch(got: got, expected: nil) }
        let change = expected[next]
        // A wrong change still takes its place: the ones after it are compared with theirs.
        next += 1
        switch (change.kind, got) {
        case (.breakSent(let recorded), .breakSent(let ms)) where abs(ms - recorded) <= Self.breakTolerance(recorded):
            return .matched(got)
        case (.lines(let recorded), .lines(let lines)) where recorded == lines:
            return .matched(got)
        default:
            return .mismatch(got: got, expected: change)
        }
    }

    /// The file lines of the recorded changes the program has not made.
    var unperformedLines: [Int] { expected[next...].map(\.line) }
}
