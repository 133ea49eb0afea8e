/// A program's command line made only of long options (`--name`, `--name value`,
/// `--name=value`), with `-h`/`--help`, `--version` and `--generate-completion-script SHELL`
/// built in. The daemon's command line is this small; a parser of its own keeps
/// swift-argument-parser, and with it FoundationEssentials, out of the daemon's binary.
///
/// Rules (the same a user of swift-argument-parser's programs expects):
/// - `-h`/`--help` anywhere wins, then `--version`, then `--generate-completion-script`;
/// - an option's value is the next argument, unless that starts with `--`: then the value is
///   missing (write `--name=--odd` for such a value); an empty value is refused;
/// - a flag takes no `=value`; an option given twice, an unknown option (with the closest known
///   one suggested) and any argument that is not an option are errors.
///
/// A value. Any thread.
package struct CommandLineSpec: Sendable {
    package let program: String
    package let abstract: String
    package let discussion: String
    package let version: String
    package let options: [OptionSpec]

    /// The options every program has, in the order help lists them.
    static let builtIn: [OptionSpec] = [
        .value(
            "generate-completion-script",
            "shell",
            completion: .words(Shell.allCases.map(\.rawValue)),
            help: "Print a completion script for bash, zsh or fish.",
            hidden: true
        ),
        .flag("version", help: "Show the version."),
        .flag("help", short: "h", help: "Show help information."),
    ]

    /// Every option: the program's, then the built-in ones.
    var allOptions: [OptionSpec] { options + Self.builtIn }

    /// `options` must have distinct names, none of them a built-in one (checked: a programming
    /// error, found by the first run).
    package init(program: String, abstract: String, discussion: String = "", version: String, options: [OptionSpec]) {
        let names = (options + Self.builtIn).map(\.name)
        precondition(Set(names).count == names.count, "\(program): an option name is used twice: \(names)")
        self.program = program
        self.abstract = abstract
        self.discussion = discussion
        self.version = version
        self.options = options
    }

    /// What the arguments (without the program's name) ask for.
    package func parse(_ arguments: [String]) throws(CommandLineError) -> ParsedCommandLine {
        if arguments.contains(where: { $0 == "-h" || $0 == "--help" }) { return .help }
        if arguments.contains("--version") { return .version }
        var values = OptionValues()
        var completion: Shell?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw CommandLineError(
                    argument.hasPrefix("-") && argument != "-"
                        ? "unknown option '\(argument)'\(suggestion(for: argument))"
                        : "unexpected argument '\(argument)': \(program) takes options only"
                )
            }
            let body = argument.dropFirst(2)
            let name: String
            var inlineValue: String?
            if let equals = body.firstIndex(of: "=") {
                name = String(body[..<equals])
                inlineValue = String(body[body.index(after: equals)...])
            } else {
                name = String(body)
            }
            guard let option = allOptions.first(where: { $0.name == name }) else {
                throw CommandLineError("unknown option '--\(name)'\(suggestion(for: name))")
            }
            guard let valueName = option.valueName else {
                if inlineValue != nil { throw CommandLineError("'--\(name)' is a flag: it takes no value") }
                if values.flags.contains(name) { throw CommandLineError("'--\(name)' is given twice") }
                values.flags.insert(name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count, !arguments[index].hasPrefix("--") {
                value = arguments[index]
                index += 1
            } else {
                throw CommandLineError("'--\(name)' needs a value: --\(name) <\(valueName)>")
            }
            guard !value.isEmpty else { throw CommandLineError("'--\(name)' needs a value: --\(name) <\(valueName)>") }
            if option.name == "generate-completion-script" {
                guard let shell = Shell(rawValue: value) else {
                    throw CommandLineError("'--\(name)' takes bash, zsh or fish, not '\(value)'")
                }
                completion = shell
                continue
            }
            if values.values[name] != nil { throw CommandLineError("'--\(name)' is given twice") }
            values.values[name] = value
        }
        if let completion { return .completionScript(completion) }
        return .run(values)
    }

    /// ` (did you mean '--x'?)` for the known option closest to `word`, if one is close.
    private func suggestion(for word: String) -> String {
        let typed = String(word.drop(while: { $0 == "-" }).prefix(while: { $0 != "=" }))
        let candidates = allOptions.filter { !$0.hidden }.map(\.name)
        let scored = candidates.map { (name: $0, distance: editDistance(typed, $0)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }),
            best.distance <= max(2, best.name.count / 3)
        else { return "" }
        return " (did you mean '--\(best.name)'?)"
    }
}

/// What a command line asks the program to do. A value. Any thread.
package enum ParsedCommandLine: Equatable, Sendable {
    /// Run with these options.
    case run(OptionValues)
    /// Print `helpText` and exit 0.
    case help
    /// Print `version` and exit 0.
    case version
    /// Print `completionScript(for:)` and exit 0.
    case completionScript(Shell)
}

/// The options given. A value. Any thread.
package struct OptionValues: Equatable, Sendable {
    var flags: Set<String> = []
    var values: [String: String] = [:]

    package init() {}

    /// Whether the flag `--name` was given.
    package func isSet(_ name: String) -> Bool { flags.contains(name) }

    /// The value of `--name`, if it was given.
    package func value(_ name: String) -> String? { values[name] }
}

/// A command line the program cannot run with; `description` says why, for a person.
/// A value. Any thread.
package struct CommandLineError: Error, Equatable, Sendable, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// Levenshtein distance, for the "did you mean" suggestion.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in stride(from: 1, through: b.count, by: 1) {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
