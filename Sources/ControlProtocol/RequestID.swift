/// A JSON-RPC request id: an integer that fits `Int64`, or a string.
///
/// Floats, booleans, arrays, objects and `null` are not accepted as ids by this daemon.
///
/// Threading: a value. Any thread.
public enum RequestID: Sendable, Hashable, CustomStringConvertible, JSONEncodable {
    case int(Int64)
    case string(String)

    /// The id as JSON.
    public var json: JSONValue {
        switch self {
        case .int(let value): .integer(value)
        case .string(let value): .string(value)
        }
    }

    /// `7` or `"abc"` (as JSON).
    public var description: String { json.description }

    public func encodeJSON(into buffer: inout [UInt8]) {
        switch self {
        case .int(let value): JSONOutput.appendInteger(value, to: &buffer)
        case .string(let value): JSONOutput.appendString(value, to: &buffer)
        }
    }

    /// The id in `value`, or `nil` if it is not an integer that fits `Int64` or a string.
    static func from(_ value: JSONValue) -> RequestID? {
        switch value {
        case .number(.integer(let integer)): .int(integer)
        case .string(let string): .string(string)
        default: nil
        }
    }

    /// Why `value` is not an id (`what` names it, e.g. "\"id\"").
    static func problem(with value: JSONValue, what: String) -> String {
        if case .number(.outOfRange(let text)) = value {
            return "\(what) \(ValueDescription.truncated(text)) is out of range (an integer id must fit in 64 bits)"
        }
        return "\(what) must be an integer or a string (got \(ValueDescription.describe(value)))"
    }
}
