/// Character mappings in tio's vocabulary (`--map icrnl,onlcr`): `i…` rules change what the
/// device sends before it is shown, `o…` rules change what is typed before it is sent.
///
/// Rules apply in a fixed order, each to the result of the one before (as in tio): on the way
/// to the device CR→LF (`ocrnl`), CR→CR LF (`crlf`), LF→CR LF (`onlcr`), DEL→BS (`odelbs`); on
/// the way to the screen CR dropped (`igncr`), CR→LF (`icrnl`), LF→CR (`inlcr`), LF→CR LF (`inlcrnl`).
///
/// Threading: a value. Any thread.
package struct CharacterMap: Sendable, Hashable {
    /// One mapping.
    package enum Rule: String, Sendable, Hashable, CaseIterable {
        case icrnl, igncr, inlcr, inlcrnl, ocrnl, crlf, onlcr, odelbs

        package var summary: String {
            switch self {
            case .icrnl: "CR from the device shown as LF"
            case .igncr: "CR from the device not shown"
            case .inlcr: "LF from the device shown as CR"
            case .inlcrnl: "LF from the device shown as CR LF"
            case .ocrnl: "CR typed (Enter) sent as LF"
            case .crlf: "CR typed (Enter) sent as CR LF"
            case .onlcr: "LF typed sent as CR LF"
            case .odelbs: "DEL typed (Backspace) sent as BS"
            }
        }
    }

    package let rules: Set<Rule>

    package static let none = CharacterMap(rules: [])

    package init(rules: Set<Rule>) { self.rules = rules }

    /// A comma-separated list of rule names (`onlcrnl` is accepted for `onlcr`, as tio spells it).
    package init(parsing text: String) throws(CharacterMapError) {
        var rules: Set<Rule> = []
        for word in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = word.trimmingSpaces().lowercased()
            guard let rule = Rule(rawValue: name == "onlcrnl" ? "onlcr" : name) else {
                let known = Rule.allCases.map(\.rawValue).joined(separator: ", ")
                throw CharacterMapError("--map: unknown mapping '\(word)' (known: \(known))")
            }
            rules.insert(rule)
        }
        for (a, b) in [(Rule.ocrnl, Rule.crlf), (.inlcr, .inlcrnl), (.icrnl, .igncr)]
        where rules.contains(a) && rules.contains(b) {
            throw CharacterMapError("--map: \(a.rawValue) and \(b.rawValue) both map the same character; choose one")
        }
        self.rules = rules
    }

    /// What is sent for typed `bytes`.
    package func toDevice(_ bytes: [UInt8]) -> [UInt8] {
        guard !rules.isEmpty else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for var byte in bytes {
            if byte == 0x0D && rules.contains(.ocrnl) { byte = 0x0A }
            if byte == 0x0D && rules.contains(.crlf) {
                out += [0x0D, 0x0A]
            } else if byte == 0x0A && rules.contains(.onlcr) {
                out += [0x0D, 0x0A]
            } else if byte == 0x7F && rules.contains(.odelbs) {
                out.append(0x08)
            } else {
                out.append(byte)
            }
        }
        return out
    }

    /// What is shown for the device's `bytes`.
    package func toScreen(_ bytes: [UInt8]) -> [UInt8] {
        guard !rules.isEmpty else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for var byte in bytes {
            if byte == 0x0D && rules.contains(.igncr) { continue }
            if byte == 0x0D && rules.contains(.icrnl) { byte = 0x0A }
            if byte == 0x0A && rules.contains(.inlcrnl) {
                out += [0x0D, 0x0A]
            } else if byte == 0x0A && rules.contains(.inlcr) {
                out.append(0x0D)
            } else {
                out.append(byte)
            }
        }
        return out
    }
}

/// Why a `--map` value was refused.
///
/// Threading: a value. Any thread.
package struct CharacterMapError: Error, Sendable, Hashable, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}

extension Substring {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
