/// Why a YAML text could not be composed into a tree.
///
/// Threading: a value. Any thread.
package enum YAMLError: Error, Sendable, CustomStringConvertible {
    /// The text is not YAML: `problem` at `line`, found while reading `context` (which began at
    /// `contextLine`), as libyaml's scanner and parser word it.
    case syntax(problem: String, line: Int, context: String?, contextLine: Int?)
    /// One mapping names a key twice; `keys` are the repeated keys, `line` is where the first
    /// of them first appears.
    case duplicateKeys(keys: [String], line: Int)
    /// The bytes could not be read as text (libyaml's reader), or libyaml ran out of memory.
    case reader(problem: String)

    /// The line the error is at, when there is one.
    package var line: Int? {
        switch self {
        case .syntax(_, let line, _, _), .duplicateKeys(_, let line): line
        case .reader: nil
        }
    }

    package var description: String {
        switch self {
        case .syntax(let problem, let line, let context, let contextLine):
            let during = context.map { " (\($0) at line \(contextLine ?? line))" } ?? ""
            return "line \(line): \(problem)\(during)"
        case .duplicateKeys(let keys, let line):
            return "line \(line): duplicate key " + keys.map { "\"\($0)\"" }.joined(separator: ", ")
        case .reader(let problem):
            return problem
        }
    }
}
