/// "Did you mean …?" for unknown names: the closest candidate within a small edit distance. Used
/// for unknown methods and params (ControlProtocol), and for unknown configuration keys (AccessoryConfig).
///
/// Threading: stateless. Any thread.
package enum Suggestion {
    /// The candidate closest to `name` if it is close enough to be a likely typo.
    package static func closest(to name: String, among candidates: some Sequence<String>) -> String? {
        let source = Array(name.utf8.prefix(64))
        var best: (candidate: String, distance: Int)? = nil
        for candidate in candidates {
            var distance = editDistance(source, Array(candidate.utf8))
            let limit = max(1, min(3, candidate.utf8.count / 3))
            // A truncated or extended name ("lease" for "lease_ms", "baudrate" for "baud") is a likely slip too.
            let target = Array(candidate.utf8)
            if min(source.count, target.count) >= 3 && (target.starts(with: source) || source.starts(with: target)) {
                distance = min(distance, limit)
            }
            if distance <= limit && distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    /// " (did you mean "x"?)" or "".
    package static func hint(for name: String, among candidates: some Sequence<String>) -> String {
        guard let match = closest(to: name, among: candidates) else { return "" }
        return " (did you mean \(ValueDescription.quoted(match))?)"
    }

    private static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
