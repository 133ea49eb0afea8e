import YAMLTree

/// Decodes configuration text (the daemon reads the file; this module does no I/O).
///
/// Threading: stateless. Any thread.
package enum ConfigurationLoader {
    /// The most issues reported for one file; a last issue says how many more there were.
    package static let maxIssues = 100

    /// Every issue in `yaml` (errors and warnings, in file order) and the configuration if it
    /// has no errors. `file` is the name messages use.
    package static func check(yaml: String, file: String) -> (configuration: Configuration?, issues: [ConfigIssue]) {
        let context = DecodeContext(file: file)
        let root: Node?
        do throws(YAMLError) {
            root = try YAML.compose(yaml: yaml)
        } catch {
            return (nil, [syntaxIssue(error, file: file)])
        }
        var configuration = ConfigDecoder(context: context).decode(root)
        configuration.sourceMap = SourceMap(file: file, lines: context.lines)
        var issues = (context.issues + validate(configuration)).enumerated()
            .sorted { ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset) }
            .map(\.element)
        let usable = !issues.contains { $0.severity == .error }
        if issues.count > maxIssues {
            let hidden = issues.count - maxIssues
            issues.removeLast(hidden)
            issues.append(
                ConfigIssue(.error, file: file, line: nil, keyPath: "", message: "\(hidden) more issues not shown")
            )
        }
        return (usable ? configuration : nil, issues)
    }

    /// Like ``check(yaml:file:)`` for raw file bytes, which must be UTF-8.
    package static func check(bytes: some Collection<UInt8>, file: String) -> (
        configuration: Configuration?, issues: [ConfigIssue]
    ) {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            // Name the line of the first invalid sequence.
            var line = 1
            var iterator = bytes.makeIterator()
            var decoder = UTF8()
            decoding: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar): if scalar == "\n" { line += 1 }
                case .emptyInput, .error: break decoding
                }
            }
            let issue = ConfigIssue(.error, file: file, line: line, keyPath: "", message: "the file is not valid UTF-8")
            return (nil, [issue])
        }
        return check(yaml: text, file: file)
    }

    /// The configuration in `yaml`, or every issue if it has errors. Warnings are not
    /// returned; call ``validate(_:)`` to see them.
    package static func load(yaml: String, file: String) throws(ConfigError) -> Configuration {
        let (configuration, issues) = check(yaml: yaml, file: file)
        guard let configuration else { throw ConfigError(issues: issues) }
        return configuration
    }

    private static func syntaxIssue(_ error: YAMLError, file: String) -> ConfigIssue {
        let message: String
        switch error {
        case .syntax(let problem, _, let context, let contextLine):
            message = "YAML syntax error: \(problem)" + (context.map { " (\($0) at line \(contextLine ?? 0))" } ?? "")
        case .duplicateKeys(let keys, _):
            let keys = keys.map { "\"\($0)\"" }.joined(separator: ", ")
            message = "duplicate key \(keys) in one mapping (each key may appear once)"
        case .reader(let problem):
            message = "cannot read the YAML: \(problem)"
        }
        return ConfigIssue(.error, file: file, line: error.line, keyPath: "", message: message)
    }
}
