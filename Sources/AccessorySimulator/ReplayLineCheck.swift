import TrafficTrace
import Transports

/// Compares the modem line changes the replayed program makes with the recording's `control`
/// records (DTR and RTS, in order). The program's changes arrive through the line stand-in: a pty
/// carries no DTR or RTS, so the daemon (or any program that talks to the stand-in) reports each
/// change as a ``ModemLineReport`` of both lines (docs/replay.md says where the edge is).
///
/// Only changes count: the recording holds every line a `control` set, the stand-in reports the
/// state after each, and both start with DTR and RTS asserted, as a port opens (an `open` in the
/// recording, or a port opened again, comes back to that). The i-th change the program makes is
/// compared with the i-th recorded change that moved a line. Breaks are not compared: the
/// stand-in does not carry them.
///
/// Threading: a value owned by one ``ReplayResponder``; loop thread only.
struct ReplayLineCheck {
    /// A recorded change that moved a line: both lines after it, and its line in the file.
    ///
    /// Threading: a value. Any thread.
    struct Change: Equatable {
        var lines: ModemLineReport
        var line: Int
    }

    /// How one report compared.
    ///
    /// Threading: a value. Any thread.
    enum Outcome: Equatable {
        /// It changed nothing (the report a port makes as it opens, a line set to its level).
        case unchanged
        case matched
        /// Not what the recording has next (`expected`), or past its last change (nil).
        case mismatch(expected: Change?)
    }

    static let opened = ModemLineReport(dtr: true, rts: true)

    let expected: [Change]
    private var next = 0
    private var last = Self.opened

    init(recording: Recording) {
        var state = Self.opened
        var changes: [Change] = []
        for entry in recording.entries {
            var after = state
            switch entry.kind {
            case .control(.dtr(let level), _): after.dtr = level
            case .control(.rts(let level), _): after.rts = level
            case .event("open"): after = Self.opened
            default: continue
            }
            guard after != state else { continue }
            changes.append(Change(lines: after, line: entry.line))
            state = after
        }
        expected = changes
    }

    /// The program's lines are now `lines`.
    mutating func report(_ lines: ModemLineReport) -> Outcome {
        guard lines != last else { return .unchanged }
        last = lines
        guard next < expected.count else { return .mismatch(expected: nil) }
        let change = expected[next]
        // A wrong change still takes its place: the ones after it are compared with theirs.
        next += 1
        return change.lines == lines ? .matched : .mismatch(expected: change)
    }

    /// The file lines of the recorded changes the program has not made.
    var unperformedLines: [Int] { expected[next...].map(\.line) }
}
