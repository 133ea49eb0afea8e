/// Matches a line against a step's `expect`: equal as text, or a whole-line regex match. Holds
/// the compiled regex. Owned by one responder; loop thread only.
struct ScriptMatcher {
    let text: String
    let regex: Regex<AnyRegexOutput>?

    init(_ text: String) {
        self.text = text
        regex = try? Regex(text)
    }

    /// The captures (`$0` the whole line) when `line` matches, else nil.
    func match(_ line: String) -> [String]? {
        if line == text { return [line] }
        guard let regex, let m = try? regex.wholeMatch(in: line) else { return nil }
        return (0..<m.output.count).map { m.output[$0].substring.map(String.init) ?? "" }
    }

    /// `template` with `$0`…`$9` replaced by `captures` (`$$` is a dollar sign).
    static func substitute(_ template: String, _ captures: [String]) -> String {
        guard template.contains("$") else { return template }
        var out = ""
        var it = template.makeIterator()
        while let c = it.next() {
            guard c == "$" else {
                out.append(c)
                continue
            }
            guard let n = it.next() else {
                out.append("$")
                break
            }
            if n == "$" {
                out.append("$")
            } else if let d = n.wholeNumberValue, n.isASCIIDigit {
                out += d < captures.count ? captures[d] : ""
            } else {
                out.append("$")
                out.append(n)
            }
        }
        return out
    }
}

/// The `script` personality: answers lines according to a ``SimulatorScript``.
///
/// Owned by one accessory; loop thread only.
struct ScriptResponder: Responder {
    let script: SimulatorScript
    let structuralBytes: Set<UInt8>
    private var splitter: LineSplitter
    private let matchers: [ScriptMatcher]
    /// `sequence` mode: the step expected next.
    private var position = 0

    init(script: SimulatorScript, terminator: LineTerminator, maxLength: Int) {
        self.script = script
        let t = terminator == .none ? LineTerminator.any : terminator
        splitter = LineSplitter(terminator: t, maxLength: maxLength)
        matchers = script.steps.map { ScriptMatcher($0.expect) }
        structuralBytes = Set([0x0D, 0x0A] + (script.replyTerminator ?? []))
    }

    mutating func receive(_ bytes: ArraySlice<UInt8>) -> [Output] {
        var out: [Output] = []
        for line in splitter.feed(bytes) { out.append(answer(line)) }
        return out
    }

    private mutating func answer(_ line: ReceivedLine) -> Output {
        let text = String(decoding: line.content, as: UTF8.self)
        let terminator = script.replyTerminator ?? Array(line.terminator)
        switch script.mode {
        case .rules:
            for (i, m) in matchers.enumerated() {
                if let captures = m.match(text) { return reply(script.steps[i], captures, terminator) }
            }
        case .sequence:
            if let captures = matchers[position].match(text) {
                let step = script.steps[position]
                position = (position + 1) % matchers.count
                return reply(step, captures, terminator)
            }
        }
        return .reply(Self.encode(script.unmatched ?? [], [text], terminator))
    }

    private func reply(_ step: SimulatorScript.Step, _ captures: [String], _ terminator: [UInt8]) -> Output {
        .reply(Self.encode(step.send ?? [], captures, terminator), delay: step.delay)
    }

    private static func encode(_ lines: [String], _ captures: [String], _ terminator: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for l in lines { out += Array(ScriptMatcher.substitute(l, captures).utf8) + terminator }
        return out
    }
}
