import JSONCodec

/// "Did you mean …?" for unknown configuration keys and values (the matching itself is
/// JSONCodec's ``Suggestion``, shared with the protocol's unknown-name errors).
///
/// Threading: stateless. Any thread.
enum ConfigSuggestion {
    /// ` (did you mean "x"?)` or an empty string.
    static func hint(for name: String, among candidates: some Sequence<String>) -> String {
        guard let match = Suggestion.closest(to: name, among: candidates) else { return "" }
        return " (did you mean \"\(match)\"?)"
    }
}
