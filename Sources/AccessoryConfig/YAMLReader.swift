import YAMLTree

/// Collects issues and source lines while a YAML tree is decoded.
///
/// Threading: confined to the decoding call that creates it.
final class DecodeContext {
    let file: String
    private(set) var issues: [ConfigIssue] = []
    private(set) var lines: [String: Int] = [:]

    init(file: String) { self.file = file }

    func error(_ keyPath: String, line: Int?, _ message: String) {
        issues.append(ConfigIssue(.error, file: file, line: line, keyPath: keyPath, message: message))
    }

    func record(_ keyPath: String, line: Int?) {
        if let line, lines[keyPath] == nil { lines[keyPath] = line }
    }
}

/// Key paths as messages print them: `accessories[1].serial.baud`.
///
/// Threading: stateless. Any thread.
enum KeyPath {
    static func child(_ parent: String, _ key: String) -> String { parent.isEmpty ? key : parent + "." + key }
    static func index(_ parent: String, _ index: Int) -> String { parent + "[\(index)]" }
}

extension Node {
    var line: Int? { mark?.line }

    /// A plain `~`, `null` or empty scalar: the key counts as absent.
    var isNull: Bool {
        guard case .scalar(let scalar) = self, scalar.style == .plain || scalar.style == .any else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    /// How a value is shown in messages: `"fast"`, `-5`, `a mapping`, `a list`.
    var shown: String {
        switch self {
        case .scalar(let scalar):
            let text = scalar.string.count > 40 ? String(scalar.string.prefix(40)) + "…" : scalar.string
            let numeric = !text.isEmpty && text.allSatisfy { $0.isNumber || $0 == "-" || $0 == "." || $0 == "+" }
            if numeric && scalar.style == .plain { return text }
            return "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        }
    }
}

/// An integer's allowed values and how to describe them ("a positive integer").
///
/// Threading: a value. Any thread.
struct IntRule: Sendable {
    let range: ClosedRange<Int>
    let allowed: [Int]?
    let what: String

    init(_ range: ClosedRange<Int>, _ what: String, allowed: [Int]? = nil) {
        self.range = range
        self.allowed = allowed
        self.what = what
    }

    func accepts(_ value: Int) -> Bool {
        range.contains(value) && (allowed?.contains(value) ?? true)
    }
}

/// A YAML mapping being decoded: rejects duplicate and unknown keys up front, then hands out
/// typed values, recording an issue (file, line, key path) for each one that is wrong.
///
/// Threading: confined to the decoding call that creates it.
struct MappingReader {
    let context: DecodeContext
    let path: String
    let line: Int?
    private(set) var entries: [(key: String, keyLine: Int?, value: Node)] = []

    /// `nil` (with an issue) if `node` is not a mapping.
    init?(_ node: Node, path: String, context: DecodeContext, accepted: [String]) {
        self.context = context
        self.path = path
        self.line = node.line
        guard case .mapping(let mapping) = node else {
            context.error(path, line: node.line, "expected a mapping, got \(node.shown)")
            return nil
        }
        context.record(path, line: node.line)
        var firstLines: [String: Int?] = [:]
        for (keyNode, value) in mapping {
            guard case .scalar(let scalar) = keyNode else {
                context.error(path, line: keyNode.line, "keys must be plain names, got \(keyNode.shown)")
                continue
            }
            let key = scalar.string
            if let firstLine = firstLines[key] {
                let first = firstLine.map { "line \($0)" } ?? "earlier"
                context.error(KeyPath.child(path, key), line: keyNode.line, "duplicate key (first given at \(first))")
                continue
            }
            firstLines[key] = keyNode.line
            guard accepted.contains(key) else {
                let hint = ConfigSuggestion.hint(for: key, among: accepted)
                context.error(
                    KeyPath.child(path, key),
                    line: keyNode.line,
                    "unknown key\(hint); expected one of: \(accepted.joined(separator: ", "))"
                )
                continue
            }
            context.record(KeyPath.child(path, key), line: value.line ?? keyNode.line)
            entries.append((key, keyNode.line, value))
        }
    }

    /// Wraps a mapping that may hold arbitrary keys (checked by the caller).
    init?(anyKeys node: Node, path: String, context: DecodeContext) {
        guard case .mapping(let mapping) = node else {
            context.error(path, line: node.line, "expected a mapping, got \(node.shown)")
            return nil
        }
        self.init(node, path: path, context: context, accepted: mapping.keys.compactMap { $0.scalar?.string })
    }

    func childPath(_ key: String) -> String { KeyPath.child(path, key) }

    /// The value of `key`, unless absent or null.
    func node(_ key: String) -> Node? {
        guard let entry = entries.first(where: { $0.key == key }), !entry.value.isNull else { return nil }
        return entry.value
    }

    func has(_ key: String) -> Bool { node(key) != nil }

    func keyLine(_ key: String) -> Int? { entries.first { $0.key == key }?.keyLine }

    func error(_ key: String, _ message: String) {
        context.error(childPath(key), line: node(key)?.line ?? keyLine(key) ?? line, message)
    }

    /// Reports `message` for the mapping itself.
    func errorHere(_ message: String) {
        context.error(path, line: line, message)
    }

    // MARK: Typed values

    /// Any scalar, as text. Numbers and booleans are taken as written.
    func string(_ key: String, what: String = "a string") -> String? {
        guard let node = node(key) else { return nil }
        guard case .scalar(let scalar) = node else {
            error(key, "expected \(what), got \(node.shown)")
            return nil
        }
        return scalar.string
    }

    /// A decimal integer (any sign; ranges are checked by validation). Quoted digits are accepted.
    func integer(_ key: String, _ rule: IntRule) -> Int? {
        guard let node = node(key) else { return nil }
        guard case .scalar(let scalar) = node, let value = Self.decimal(scalar.string) else {
            if case .scalar(let scalar) = node, Self.looksNumeric(scalar.string) {
                error(key, "expected \(rule.what), got \(node.shown) (out of range)")
            } else {
                error(key, "expected \(rule.what), got \(node.shown)")
            }
            return nil
        }
        return value
    }

    /// `true` or `false` (plain, any case of the first letter).
    func bool(_ key: String) -> Bool? {
        guard let node = node(key) else { return nil }
        if case .scalar(let scalar) = node, scalar.style == .plain {
            switch scalar.string {
            case "true", "True", "TRUE": return true
            case "false", "False", "FALSE": return false
            default: break
            }
        }
        error(key, "expected true or false, got \(node.shown)")
        return nil
    }

    /// One of an enum's raw values.
    func choice<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type) -> T? where T.RawValue == String {
        guard let node = node(key) else { return nil }
        let names = T.allCases.map(\.rawValue)
        guard case .scalar(let scalar) = node, let value = T(rawValue: scalar.string) else {
            var hint = ""
            if case .scalar(let scalar) = node { hint = ConfigSuggestion.hint(for: scalar.string, among: names) }
            error(key, "expected one of \(names.joined(separator: ", ")), got \(node.shown)\(hint)")
            return nil
        }
        return value
    }

    /// A nested mapping.
    func mapping(_ key: String, accepted: [String]) -> MappingReader? {
        guard let node = node(key) else { return nil }
        return MappingReader(node, path: childPath(key), context: context, accepted: accepted)
    }

    /// A list (a single scalar is not promoted to a list).
    func sequence(_ key: String) -> [Node]? {
        guard let node = node(key) else { return nil }
        guard case .sequence(let sequence) = node else {
            error(key, "expected a list, got \(node.shown)")
            return nil
        }
        return Array(sequence)
    }

    /// A list of scalars as text; wrong elements are reported and skipped.
    func strings(_ key: String, what: String) -> [String]? {
        guard let nodes = sequence(key) else { return nil }
        var result: [String] = []
        for (index, element) in nodes.enumerated() {
            let elementPath = KeyPath.index(childPath(key), index)
            context.record(elementPath, line: element.line)
            guard case .scalar(let scalar) = element, !element.isNull else {
                context.error(elementPath, line: element.line, "expected \(what), got \(element.shown)")
                continue
            }
            result.append(scalar.string)
        }
        return result
    }

    static func decimal(_ text: String) -> Int? {
        var digits = Substring(text)
        var negative = false
        if digits.first == "-" || digits.first == "+" {
            negative = digits.first == "-"
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(digits) else {
            return nil
        }
        return negative ? -value : value
    }

    static func looksNumeric(_ text: String) -> Bool {
        let digits = text.drop { $0 == "-" || $0 == "+" }
        return !digits.isEmpty && digits.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
}
