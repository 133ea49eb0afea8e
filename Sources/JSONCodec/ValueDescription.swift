/// Short renderings of client-supplied values for error messages: never echoes more than a
/// few dozen characters of hostile input back.
///
/// Threading: stateless. Any thread.
package enum ValueDescription {
    package static let maxCharacters = 40

    /// `"abc"`, `12`, `1.5`, `true`, `null`, `an object`, `an array`.
    package static func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let string): quoted(string)
        case .number(let number): truncated(number.text)
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The string as a JSON string literal, shortened with an ellipsis if long.
    package static func quoted(_ string: String) -> String {
        let short = string.count > maxCharacters ? String(string.prefix(maxCharacters)) + "…" : string
        return JSONValue.string(short).description
    }

    package static func truncated(_ text: String) -> String {
        text.count > maxCharacters ? String(text.prefix(maxCharacters)) + "…" : text
    }
}
