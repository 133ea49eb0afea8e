extension CommandLineSpec {
    /// A completion script for `shell`: every option (hidden ones too), and for an option's value
    /// files, folders or its words. Bash's has no `#!` line: it is sourced, not run.
    package func completionScript(for shell: Shell) -> String {
        switch shell {
        case .bash: bashScript
        case .zsh: zshScript
        case .fish: fishScript
        }
    }

    /// The shell function's name: the program's, with characters a name cannot hold as `_`.
    private var functionName: String {
        "_" + String(program.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    private var bashScript: String {
        var words: [String] = []
        for option in allOptions {
            if let short = option.short { words.append("-\(short)") }
            words.append("--" + option.name)
        }
        var cases: [String] = []
        for option in allOptions where option.valueName != nil {
            let reply: String
            switch option.completion {
            case .none: reply = "COMPREPLY=()"
            case .file: reply = "COMPREPLY=( $(compgen -f -- \"$cur\") )"
            case .directory: reply = "COMPREPLY=( $(compgen -d -- \"$cur\") )"
            case .words(let values):
                reply = "COMPREPLY=( $(compgen -W \"\(values.joined(separator: " "))\" -- \"$cur\") )"
            }
            cases.append("        --\(option.name)) \(reply); return ;;")
        }
        return """
            # bash completion for \(program)
            \(functionName)() {
                local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
                case "$prev" in
            \(cases.joined(separator: "\n"))
                esac
                COMPREPLY=( $(compgen -W "\(words.joined(separator: " "))" -- "$cur") )
            }
            complete -F \(functionName) \(program)

            """
    }

    private var zshScript: String {
        func escaped(_ help: String) -> String {
            var out = ""
            for character in firstSentence(help) {
                switch character {
                case "[", "]", ":", "\\": out += "\\" + String(character)
                case "'": out += "'\\''"
                default: out.append(character)
                }
            }
            return out
        }
        var specs: [String] = []
        for option in allOptions {
            let action: String
            switch (option.valueName, option.completion) {
            case (nil, _): action = ""
            case (let value?, .none): action = ":\(value): "
            case (let value?, .file): action = ":\(value):_files"
            case (let value?, .directory): action = ":\(value):_files -/"
            case (let value?, .words(let values)): action = ":\(value):(\(values.joined(separator: " ")))"
            }
            let names =
                option.short.map { "(-\($0) --\(option.name))'{-\($0),--\(option.name)}'" } ?? "--\(option.name)"
            specs.append("    '\(names)[\(escaped(option.help))]\(action)'")
        }
        return """
            #compdef \(program)
            \(functionName)() {
                _arguments -s \\
            \(specs.map { "    " + $0 }.joined(separator: " \\\n"))
            }
            \(functionName) "$@"

            """
    }

    private var fishScript: String {
        func quoted(_ text: String) -> String {
            "'" + firstSentence(text).replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
        }
        var lines = ["# fish completion for \(program)", "complete -c \(program) -f"]
        for option in allOptions {
            var line = "complete -c \(program)"
            if let short = option.short { line += " -s \(short)" }
            line += " -l \(option.name)"
            if option.valueName != nil {
                switch option.completion {
                case .none: line += " -x"
                case .file: line += " -r -F"
                case .directory: line += " -x -a '(__fish_complete_directories)'"
                case .words(let values): line += " -x -a '\(values.joined(separator: " "))'"
                }
            }
            lines.append(line + " -d " + quoted(option.help))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Up to the first ". " (help texts run long; the shells show one line).
private func firstSentence(_ text: String) -> String {
    guard let end = text.firstRange(of: ". ") else { return text }
    return String(text[..<end.lowerBound]) + "."
}
