import TrafficTrace

/// Bytes to play at an offset (µs) from a moment: a request's arrival, or the replay's start.
///
/// Threading: a value. Any thread.
struct TimedChunk: Equatable {
    var offsetMicroseconds: Int64
    var bytes: [UInt8]
}

/// One recorded request, what answered it, and the unsolicited frames that followed it before
/// the next request.
///
/// Threading: a value. Any thread.
struct RecordedExchange {
    var line: Int
    /// When it was sent, from the recording's start.
    var timeMicroseconds: Int64
    var request: [UInt8]
    var replies: [TimedChunk]
    var followers: [TimedChunk]
}

/// The outcome of matching one request.
///
/// Threading: a value. Any thread.
enum ReplayOutcome: Equatable {
    /// Answer with exchange `index`'s replies; `repeated` when its recorded occurrences ran out.
    case matched(Int, repeated: Bool)
    /// No recorded request fits. `expected`: the exchange the recording had next; `nearest`: the
    /// one whose request is most like it (what `--lenient` answers with).
    case mismatch(expected: Int?, nearest: Int?, reason: String)
}

/// Matches a program's requests against a recording's (docs/replay.md, "Matching"): byte for
/// byte, or equal under a rule (a regular expression both match whole); the same request
/// recorded several times gets its recorded answers in the recorded order, then the last one
/// again (or a mismatch: ``ReplayOptions/AfterLast``).
///
/// Threading: loop thread only (holds ``ByteRegex``es).
struct ReplayMatcher {
    /// A request's identity for matching: its bytes, or the rule that covers it.
    ///
    /// Threading: a value.
    enum Key: Hashable {
        case bytes([UInt8])
        case rule(Int)
    }

    let exchanges: [RecordedExchange]
    /// Unsolicited frames before the first request, from the start.
    let leading: [TimedChunk]
    /// Every unsolicited frame, from the start (for ``ReplayOptions/UnsolicitedClock/start``).
    let allUnsolicited: [TimedChunk]
    /// The byte every recorded request ends with, if they all end with the same one: where the
    /// program's bytes are split into requests.
    let delimiter: UInt8?
    private let rules: [ByteRegex]
    private let afterLast: ReplayOptions.AfterLast
    private var byKey: [Key: [Int]] = [:]
    private var used: [Key: Int] = [:]
    private(set) var consumed: [Bool]
    private var lastMatched: Int?

    /// Checks that every rule is a valid expression (``ReplayPlan/load(file:rulesFile:options:ledger:)``
    /// does, so that a matcher never meets an invalid one).
    static func check(_ rules: [ReplayRule]) throws(SimulatorError) {
        for rule in rules {
            do throws(RecordingError) {
                _ = try ByteRegex(rule.pattern)
            } catch {
                throw .invalidConfiguration("rule on line \(rule.line): \(error.message)")
            }
        }
    }

    /// Rules that are not valid expressions are left out (``check(_:)`` refuses them earlier).
    init(recording: Recording, options: ReplayOptions) {
        self.rules = options.rules.compactMap { try? ByteRegex($0.pattern) }
        self.afterLast = options.afterLast
        var exchanges: [RecordedExchange] = []
        var exchangeOfEntry: [Int: Int] = [:]
        var leading: [TimedChunk] = []
        var all: [TimedChunk] = []
        for (index, entry) in recording.entries.enumerated() {
            switch entry.kind {
            case .tx:
                exchangeOfEntry[index] = exchanges.count
                exchanges.append(
                    RecordedExchange(
                        line: entry.line,
                        timeMicroseconds: entry.timeMicroseconds,
                        request: entry.bytes,
                        replies: [],
                        followers: []
                    )
                )
            case .rx(let replyTo):
                if let replyTo, let exchange = exchangeOfEntry[replyTo] {
                    let offset = entry.timeMicroseconds - recording.entries[replyTo].timeMicroseconds
                    exchanges[exchange].replies.append(TimedChunk(offsetMicroseconds: offset, bytes: entry.bytes))
                    continue
                }
                all.append(TimedChunk(offsetMicroseconds: entry.timeMicroseconds, bytes: entry.bytes))
                if let last = exchanges.indices.last {
                    let offset = entry.timeMicroseconds - exchanges[last].timeMicroseconds
                    exchanges[last].followers.append(TimedChunk(offsetMicroseconds: offset, bytes: entry.bytes))
                } else {
                    leading.append(TimedChunk(offsetMicroseconds: entry.timeMicroseconds, bytes: entry.bytes))
                }
            case .event, .dropped, .control:
                break
            }
        }
        self.exchanges = exchanges
        self.leading = leading
        self.allUnsolicited = all
        let ends = Set(exchanges.compactMap(\.request.last))
        self.delimiter = ends.count == 1 && exchanges.allSatisfy { !$0.request.isEmpty } ? ends.first : nil
        self.consumed = Array(repeating: false, count: exchanges.count)
        for (index, exchange) in exchanges.enumerated() { byKey[key(for: exchange.request), default: []].append(index) }
    }

    func key(for request: [UInt8]) -> Key {
        for (index, rule) in rules.enumerated() where rule.matchesWhole(request) { return .rule(index) }
        return .bytes(request)
    }

    /// Matches the program's next request.
    mutating func match(_ request: [UInt8]) -> ReplayOutcome {
        let key = key(for: request)
        if let indices = byKey[key] {
            let count = used[key, default: 0]
            if count < indices.count {
                used[key] = count + 1
                consumed[indices[count]] = true
                lastMatched = indices[count]
                return .matched(indices[count], repeated: false)
            }
            if afterLast == .repeatLast, let last = indices.last { return .matched(last, repeated: true) }
            return .mismatch(
                expected: expected(),
                nearest: indices.last,
                reason: "asked \(count + 1) times; the recording has it \(count) times"
            )
        }
        return .mismatch(expected: expected(), nearest: nearest(to: request), reason: "not in the recording")
    }

    /// The recorded request the program should have sent next: the first unanswered one after
    /// the last matched (or the first unanswered one at all).
    func expected() -> Int? {
        let from = (lastMatched ?? -1) + 1
        return consumed.indices.first { $0 >= from && !consumed[$0] } ?? consumed.indices.first { !consumed[$0] }
    }

    /// The recorded request sharing the longest prefix with `request`; the expected one on a tie.
    func nearest(to request: [UInt8]) -> Int? {
        guard !exchanges.isEmpty else { return nil }
        let preferred = expected()
        var best: (index: Int, score: Int)?
        for (index, exchange) in exchanges.enumerated() {
            let score = zip(exchange.request, request).prefix { $0 == $1 }.count
            if best == nil || score > best!.score || (score == best!.score && index == preferred) {
                best = (index, score)
            }
        }
        return best?.index
    }

    /// The lines of the recorded requests never matched.
    var unaskedLines: [Int] { exchanges.indices.filter { !consumed[$0] }.map { exchanges[$0].line } }
}
