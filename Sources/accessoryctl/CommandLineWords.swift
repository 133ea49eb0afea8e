/// Splits a script line into words as a shell would, without expansions: blanks separate
/// words; '…' quotes literally; "…" quotes with \" and \\ escapes; a backslash outside quotes
/// escapes the next character; a word starting with # starts a comment.
///
/// Threading: stateless. Any thread.
enum CommandLineWords {
    /// Why a line cannot be split.
    ///
    /// Threading: a value. Any thread.
    struct SplitError: Error, CustomStringConvertible {
        var description: String
    }

    static func split(_ line: String) throws(SplitError) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in line {
            if escaped {
                if quote == "\"" && character != "\"" && character != "\\" { word.append("\\") }
                word.append(character)
                escaped = false
                continue
            }
            switch (quote, character) {
            case ("'", "'"), ("\"", "\""):
                quote = nil
            case ("'", _):
                word.append(character)
            case ("\"", "\\"), (nil, "\\"):
                escaped = true
                inWord = true
            case ("\"", _):
                word.append(character)
            case (nil, "'"), (nil, "\""):
                quote = character
                inWord = true
            case (nil, " "), (nil, "\t"):
                if inWord { words.append(word) }
                word = ""
                inWord = false
            case (nil, "#") where !inWord:
                return words
            default:
                word.append(character)
                inWord = true
            }
        }
        if quote != nil { throw SplitError(description: "a quote (\(quote!)) is not closed") }
        if escaped { throw SplitError(description: "the line ends with a lone backslash") }
        if inWord { words.append(word) }
        return words
    }
}
