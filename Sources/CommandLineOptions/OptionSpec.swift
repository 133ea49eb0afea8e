/// One long option: a flag (`--name`) or an option with one value (`--name <value>`).
/// A value. Any thread.
package struct OptionSpec: Sendable, Equatable {
    /// Without the leading `--`.
    package let name: String
    /// A one-letter alias (`-h`), only for the built-in help.
    let short: Character?
    /// What help shows in `<…>`; nil for a flag.
    package let valueName: String?
    /// What a shell completes for the value.
    package let completion: ValueCompletion
    package let help: String
    /// Left out of help (still parsed, still in the completion scripts).
    let hidden: Bool

    /// A flag: `--name`.
    package static func flag(_ name: String, help: String) -> OptionSpec {
        OptionSpec(name: name, short: nil, valueName: nil, completion: .none, help: help, hidden: false)
    }

    static func flag(_ name: String, short: Character, help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: nil, completion: .none, help: help, hidden: false)
    }

    /// An option with a value: `--name <valueName>` or `--name=<valueName>`.
    package static func value(
        _ name: String,
        _ valueName: String,
        completion: ValueCompletion = .none,
        help: String,
        hidden: Bool = false
    ) -> OptionSpec {
        OptionSpec(name: name, short: nil, valueName: valueName, completion: completion, help: help, hidden: hidden)
    }

    /// `--name <value>` (or `-h, --help`), as help and usage show it.
    var synopsis: String {
        let long = "--" + name + (valueName.map { " <\($0)>" } ?? "")
        return short.map { "-\($0), " + long } ?? long
    }
}

/// What a shell offers for an option's value. A value. Any thread.
package enum ValueCompletion: Sendable, Equatable {
    case none
    case file
    case directory
    case words([String])
}

/// A shell `--generate-completion-script` writes for. A value. Any thread.
package enum Shell: String, Sendable, CaseIterable {
    case bash, zsh, fish
}
