import JSONCodec

/// A JSON-RPC request id: an integer that fits `Int64`, or a string.
///
/// Floats, booleans, arrays, objects and `null` are not accepted as ids by this daemon.
///
/// Threading: a value. Any thread.
public enum RequestID: Sendable, Hashable, CustomStringConvertible, JSONEncodable {
    case int(Int64)
    case string(String)

    /// The id as JSON.
    package var json: JSONValue {
        switch self {
        case .int(let value): .integer(value)
        case .string(let value): .string(value)
        }
    }

    /// `7` or `"abc"` (as JSON).
    public var description: String { json.description }

    public func encodeJSON(into buffer: inout [UInt8]) { write(to: &buffer) }

    func write(to sink: inout some JSONSink) {
        switch self {
        case .int(let value): JSONOutput.writeInteger(value, to: &sink)
        case .string(var value): value.withUTF8 { JSONOutput.writeEscaped(utf8: $0, to: &sink) }
        }
    }

    /// The most bytes ``encodeJSON(into:)`` writes: 20 digits and a sign, or the string escaped
    /// (six bytes a byte at most) and its quotes.
    var maxEncodedCount: Int {
        switch self {
        case .int: 20
        case .string(let value): 6 * value.utf8.count + 2
        }
    }

    /// The id written as JSON text (`7`, `"abc"`, as a trace file stores it), or `nil` if the text
    /// is not one JSON value that is an id.
    package init?(jsonText text: some Collection<UInt8>) {
        guard let value = try? JSONParser.parse(text), let id = RequestID.from(value) else { return nil }
        self = id
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
