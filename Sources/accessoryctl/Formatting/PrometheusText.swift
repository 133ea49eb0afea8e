import ControlProtocol

/// Prometheus' text exposition format (version 0.0.4): metric families in the order first
/// added, each with its `# HELP` and `# TYPE` lines and then its samples.
///
/// Threading: a value. Any thread.
struct PrometheusText {
    enum Kind: String {
        case counter, gauge, summary
    }

    private struct Family {
        var name: String
        var kind: Kind
        var help: String
        var samples: [String] = []
    }

    private var families: [Family] = []
    private var index: [String: Int] = [:]

    /// Adds one sample of the family `name` (created, with `kind` and `help`, on first use).
    mutating func add(
        _ name: String,
        _ kind: Kind,
        help: String,
        labels: [(String, String)] = [],
        _ value: Double
    ) {
        if index[name] == nil {
            index[name] = families.count
            families.append(Family(name: name, kind: kind, help: help))
        }
        var sample = name
        if !labels.isEmpty {
            sample += "{" + labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
        }
        sample += " " + Self.number(value)
        families[index[name]!].samples.append(sample)
    }

    /// The exposition, ending in a newline (empty when nothing was added).
    var text: String {
        var lines: [String] = []
        for family in families {
            lines.append("# HELP \(family.name) \(Self.escapeHelp(family.help))")
            lines.append("# TYPE \(family.name) \(family.kind.rawValue)")
            lines.append(contentsOf: family.samples)
        }
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }

    /// A value as the format writes it: integers without a fraction, `NaN`, `+Inf`, `-Inf`.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// A label value: backslash, double quote and line feed escaped.
    static func escapeLabel(_ text: String) -> String {
        text.replacingAll(["\\": "\\\\", "\"": "\\\"", "\n": "\\n"])
    }

    /// A help text: backslash and line feed escaped.
    static func escapeHelp(_ text: String) -> String {
        text.replacingAll(["\\": "\\\\", "\n": "\\n"])
    }

    /// A metric name part from a status member's name: what is not `[a-zA-Z0-9_]` becomes `_`.
    static func namePart(_ text: String) -> String {
        String(
            text.unicodeScalars.map { scalar -> Character in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "_": Character(scalar)
                default: "_"
                }
            }
        )
    }
}

extension String {
    /// Each character that is a key of `replacements` replaced by its value.
    fileprivate func replacingAll(_ replacements: [Character: String]) -> String {
        var result = ""
        for character in self {
            if let replacement = replacements[character] {
                result += replacement
            } else {
                result.append(character)
            }
        }
        return result
    }
}
