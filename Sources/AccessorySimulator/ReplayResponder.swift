import IOLoop
import TrafficTrace
import Transports

/// The `replay` personality: answers the program's requests with a recording's replies, at the
/// recorded delays, and plays its unsolicited frames at their recorded times (docs/replay.md).
/// Everything it writes leaves through ``due(at:)`` at a scheduled instant, so how late each
/// frame left is measured in one place.
///
/// Owned by one accessory; loop thread only.
struct ReplayResponder: Responder {
    let plan: ReplayPlan
    private var matcher: ReplayMatcher
    private var pending: [UInt8] = []
    private let maxLength: Int
    /// What is to be written, in due order (ties in the order scheduled), from `head` on: the
    /// written part is dropped in batches, so that a long recording costs no quadratic shifting.
    private var schedule: [(due: LoopInstant, bytes: [UInt8])] = []
    private var head = 0
    private var requests = 0
    private var lineCheck: ReplayLineCheck
    let structuralBytes: Set<UInt8> = []

    init(plan: ReplayPlan, maxLength: Int) {
        self.plan = plan
        self.maxLength = maxLength
        self.matcher = ReplayMatcher(recording: plan.recording, options: plan.options)
        self.lineCheck = ReplayLineCheck(recording: plan.recording)
        plan.ledger.setRequests(lines: matcher.exchanges.map(\.line))
        let unperformed = lineCheck.unperformedLines
        plan.ledger.update { $0.unperformedLineChanges = unperformed }
    }

    var nextDue: LoopInstant? { head < schedule.count ? schedule[head].due : nil }

    mutating func started(at now: LoopInstant) {
        let chunks = plan.options.unsolicitedClock == .start ? matcher.allUnsolicited : matcher.leading
        for chunk in chunks { add(chunk, from: now) }
    }

    /// Not called: the accessory hands every read to ``receive(_:at:)``, which replay needs.
    mutating func receive(_ bytes: ArraySlice<UInt8>) -> [Output] { [] }

    mutating func receive(_ bytes: ArraySlice<UInt8>, at now: LoopInstant) -> [Output] {
        guard let delimiter = matcher.delimiter else {
            handle(Array(bytes), at: now)
            return []
        }
        for byte in bytes {
            pending.append(byte)
            if byte == delimiter || pending.count >= maxLength {
                let request = pending
                pending.removeAll(keepingCapacity: true)
                handle(request, at: now)
            }
        }
        return []
    }

    mutating func due(at now: LoopInstant) -> [Output] {
        var out: [Output] = []
        var lateness: [Int64] = []
        while head < schedule.count, schedule[head].due <= now {
            let first = schedule[head]
            head += 1
            let late = now - first.due
            lateness.append(late.components.seconds * 1_000_000 + late.components.attoseconds / 1_000_000_000_000)
            out.append(.unsolicited(first.bytes))
        }
        if head >= 1024 && head * 2 >= schedule.count {
            schedule.removeFirst(head)
            head = 0
        }
        if !lateness.isEmpty {
            plan.ledger.update { report in
                report.framesPlayed += lateness.count
                let room = ReplayReport.keptSamples - report.latenessMicroseconds.count
                report.latenessMicroseconds += lateness.prefix(max(room, 0))
            }
        }
        return out
    }

    /// The program changed its modem lines (through the line stand-in): compared with the
    /// recording's line changes; a mismatch is logged and counted like a request's, and answers
    /// nothing either way.
    mutating func linesChanged(_ lines: ModemLineReport, at now: LoopInstant) -> [Output] {
        count(lineCheck.report(lines))
        return []
    }

    /// The program started or ended a break (through the line stand-in): its end is compared
    /// with the recording's breaks, as a line change.
    mutating func breakChanged(_ report: LineBreakReport, at now: LoopInstant) -> [Output] {
        count(lineCheck.report(report, at: now))
        return []
    }

    private mutating func count(_ outcome: ReplayLineCheck.Outcome) {
        let unperformed = lineCheck.unperformedLines
        switch outcome {
        case .unchanged:
            return
        case .matched:
            plan.ledger.update {
                $0.lineChangesMatched += 1
                $0.unperformedLineChanges = unperformed
            }
        case .mismatch(let got, let expected):
            let reason = expected == nil ? "is one more than the recording has" : "differs from the recording"
            var message = "replay: mismatch: \(got) \(reason)"
            if let expected { message += "; expected \(expected.kind) (\(plan.file) line \(expected.line))" }
            plan.ledger.say(message)
            let mismatch = ReplayReport.Mismatch(
                got: got.description,
                expected: expected?.kind.description,
                expectedLine: expected?.line,
                reason: "line change \(reason)"
            )
            plan.ledger.update {
                $0.mismatched += 1
                $0.lineChangesMismatched += 1
                $0.unperformedLineChanges = unperformed
                if $0.mismatches.count < ReplayReport.keptMismatches { $0.mismatches.append(mismatch) }
            }
        }
    }

    private mutating func handle(_ request: [UInt8], at now: LoopInstant) {
        requests += 1
        switch matcher.match(request) {
        case .matched(let index, let repeated):
            play(index, at: now, withFollowers: true)
            plan.ledger.asked(index)
            plan.ledger.update {
                $0.matched += 1
                if repeated { $0.repeated += 1 }
            }
        case .mismatch(let expected, let nearest, let reason):
            let exchange = expected.map { matcher.exchanges[$0] }
            let mismatch = ReplayReport.Mismatch(
                got: TrafficText.escaped(request),
                expected: exchange.map { TrafficText.escaped($0.request) },
                expectedLine: exchange?.line,
                reason: reason
            )
            var message = "replay: mismatch: request \(requests) \"\(mismatch.got)\" \(reason)"
            if let exchange, let text = mismatch.expected {
                message += "; expected \"\(text)\" (\(plan.file) line \(exchange.line))"
            }
            if plan.options.lenient, let nearest {
                message += "; answering as line \(matcher.exchanges[nearest].line) (lenient)"
                play(nearest, at: now, withFollowers: false)
            } else {
                message += "; not answered"
            }
            plan.ledger.say(message)
            plan.ledger.update {
                $0.mismatched += 1
                if $0.mismatches.count < ReplayReport.keptMismatches { $0.mismatches.append(mismatch) }
            }
        }
    }

    private mutating func play(_ index: Int, at now: LoopInstant, withFollowers: Bool) {
        let exchange = matcher.exchanges[index]
        for chunk in exchange.replies { add(chunk, from: now) }
        if withFollowers, plan.options.unsolicitedClock == .request {
            for chunk in exchange.followers { add(chunk, from: now) }
        }
    }

    private mutating func add(_ chunk: TimedChunk, from origin: LoopInstant) {
        let due = origin + plan.options.pace.scale(microseconds: chunk.offsetMicroseconds)
        var position = schedule.count
        while position > head && schedule[position - 1].due > due { position -= 1 }
        schedule.insert((due, chunk.bytes), at: position)
    }
}
