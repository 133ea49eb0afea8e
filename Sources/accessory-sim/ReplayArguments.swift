import AccessorySimulator
import ArgumentParser
import SystemCalls

/// `accessory-sim`'s replay options (docs/replay.md): `--replay FILE` (or `--file FILE`, the
/// spelling the daemon's `simulate: {personality: replay, file: …}` passes) plays a recording
/// back as the accessory.
///
/// Threading: a value; used on the main thread.
struct ReplayArguments: ParsableArguments {
    @Option(
        name: [.customLong("replay"), .customLong("file")],
        help: ArgumentHelp("Play this recording back (implies --personality replay).", valueName: "file")
    )
    var replay: String?

    @Option(help: ArgumentHelp("Replay: recorded, fast, or xN (N times as fast).", valueName: "pace"))
    var pace: String = "recorded"

    @Option(
        help: ArgumentHelp(
            "Replay: regular expressions (one a line) under which differing requests match.",
            valueName: "file"
        )
    )
    var rules: String?

    @Flag(help: "Replay: answer a mismatch with the nearest recorded request's reply (still counted).")
    var lenient = false

    @Option(help: ArgumentHelp("Replay: a request asked more often than recorded: repeat or mismatch."))
    var afterLast: AfterLastArgument = .repeat

    @Option(help: ArgumentHelp("Replay: time unsolicited frames from the start or the preceding request."))
    var unsolicitedFrom: UnsolicitedArgument = .start

    @Option(help: ArgumentHelp("Replay: write the summary as JSON to this file at the end.", valueName: "file"))
    var report: String?

    func validate(personality: PersonalityArgument) throws {
        if personality == .replay && replay == nil { throw ValidationError("--personality replay needs --replay FILE") }
        if replay != nil && personality != .replay && personality != .echo {
            throw ValidationError("--replay cannot be combined with --personality \(personality.rawValue)")
        }
        if ReplayOptions.Pace(argument: pace) == nil {
            throw ValidationError("--pace must be recorded, fast or xN with N > 0 (e.g. x2)")
        }
        if replay == nil && (rules != nil || report != nil || lenient) {
            throw ValidationError("--rules, --report and --lenient need --replay FILE")
        }
    }

    /// The plan of the replay; its ledger reports mismatches on stderr as they happen.
    func plan() throws(SimulatorError) -> ReplayPlan? {
        guard let replay else { return nil }
        let options = ReplayOptions(
            pace: ReplayOptions.Pace(argument: pace) ?? .recorded,
            afterLast: afterLast == .repeat ? .repeatLast : .mismatch,
            unsolicitedClock: unsolicitedFrom == .start ? .start : .request,
            lenient: lenient
        )
        let ledger = ReplayLedger { StandardStreams.err($0) }
        return try ReplayPlan.load(file: replay, rulesFile: rules, options: options, ledger: ledger)
    }

    /// Prints the summary, writes `--report`, and says whether the replay failed (a mismatch
    /// without `--lenient`).
    func finish(_ plan: ReplayPlan) -> Bool {
        let report = plan.ledger.report
        for line in report.summaryLines() { StandardStreams.err(line) }
        if let path = self.report {
            do throws(SyscallError) {
                try FileIO.replace(path, with: report.json(), mode: 0o644)
            } catch {
                StandardStreams.err("cannot write the report \(path): \(error)")
                return true
            }
        }
        return report.mismatched > 0 && !lenient
    }
}

/// `--after-last` values. Any thread (a value).
enum AfterLastArgument: String, CaseIterable, ExpressibleByArgument {
    case `repeat`
    case mismatch
}

/// `--unsolicited-from` values. Any thread (a value).
enum UnsolicitedArgument: String, CaseIterable, ExpressibleByArgument {
    case start
    case request
}
