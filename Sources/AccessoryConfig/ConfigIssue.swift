/// One problem found in a configuration: where (file, line, key path) and what.
///
/// Printed as `accessoryd.yaml:14: accessories[1].serial.baud: expected a positive integer, got "fast"`
/// (warnings with `warning: ` after the line).
///
/// Threading: a value. Any thread.
public struct ConfigIssue: Sendable, Equatable, CustomStringConvertible {
    /// Errors stop the daemon from using the configuration; warnings do not.
    ///
    /// Threading: a value. Any thread.
    public enum Severity: String, Sendable {
        case error
        case warning
    }

    public var severity: Severity
    public var file: String
    /// One-based; `nil` when the value has no position (built in code, or a default).
    public var line: Int?
    /// `accessories[1].serial.baud` (indices from 0); empty for the whole file.
    public var keyPath: String
    public var message: String

    public init(_ severity: Severity, file: String, line: Int?, keyPath: String, message: String) {
        self.severity = severity
        self.file = file
        self.line = line
        self.keyPath = keyPath
        self.message = message
    }

    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": "
        if severity == .warning { text += "warning: " }
        if !keyPath.isEmpty { text += keyPath + ": " }
        return text + message
    }
}

/// A configuration that cannot be used: all its issues (errors first, then warnings).
///
/// Threading: a value. Any thread.
package struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    package var issues: [ConfigIssue]

    package init(issues: [ConfigIssue]) { self.issues = issues }

    /// The error-severity issues.
    package var errors: [ConfigIssue] { issues.filter { $0.severity == .error } }

    /// One issue per line.
    package var description: String { issues.map(\.description).joined(separator: "\n") }
}

/// Where each key path of a decoded configuration came from.
///
/// Always equal to any other source map, so that ``Configuration`` equality is about values.
///
/// Threading: a value. Any thread.
public struct SourceMap: Sendable, Equatable {
    /// The file name used in messages.
    public var file: String
    /// Key path (`accessories[1].serial.baud`) → one-based line.
    public var lines: [String: Int]

    public init(file: String = "<built in code>", lines: [String: Int] = [:]) {
        self.file = file
        self.lines = lines
    }

    /// The line of `keyPath`, or of its nearest ancestor that has one.
    public func line(for keyPath: String) -> Int? {
        var path = Substring(keyPath)
        while true {
            if let line = lines[String(path)] { return line }
            guard let cut = path.lastIndex(where: { $0 == "." || $0 == "[" }) else { return nil }
            path = path[..<cut]
        }
    }

    public static func == (lhs: SourceMap, rhs: SourceMap) -> Bool { true }
}
