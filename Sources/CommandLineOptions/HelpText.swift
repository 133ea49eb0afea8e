extension CommandLineSpec {
    /// One line: `USAGE: program [--a <a>] [--b]`.
    package var usage: String {
        "USAGE: " + ([program] + options.filter { !$0.hidden }.map { "[\($0.synopsis)]" }).joined(separator: " ")
    }

    /// What `--help` prints, laid out as swift-argument-parser's programs do (80 columns, the
    /// options' help in a column from 27 on).
    package var helpText: String {
        var lines = wrap("OVERVIEW: " + abstract, width: 80, indent: "")
        if !discussion.isEmpty {
            lines.append("")
            lines += wrap(discussion, width: 80, indent: "")
        }
        lines += ["", usage, "", "OPTIONS:"]
        let column = 26
        for option in allOptions where !option.hidden {
            let name = "  " + option.synopsis
            let help = wrap(option.help, width: 80 - column, indent: "")
            if name.count < column {
                lines.append(name.padding(to: column) + help[0])
                lines += help.dropFirst().map { String(repeating: " ", count: column) + $0 }
            } else {
                lines.append(name)
                lines += help.map { String(repeating: " ", count: column) + $0 }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// `text` broken at spaces into lines of at most `width` characters (a longer word gets a line
/// of its own), each after `indent`.
func wrap(_ text: String, width: Int, indent: String) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ", omittingEmptySubsequences: true) {
        if !line.isEmpty, line.count + 1 + word.count > width {
            lines.append(indent + line)
            line = ""
        }
        line += (line.isEmpty ? "" : " ") + word
    }
    if !line.isEmpty || lines.isEmpty { lines.append(indent + line) }
    return lines
}

extension String {
    fileprivate func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
