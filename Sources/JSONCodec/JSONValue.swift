/// A JSON value (RFC 8259).
///
/// Objects keep their members in order (``JSONObject``); numbers keep integers exact
/// (``JSONNumber``). Produced by ``JSONParser`` and written by ``JSONOutput``.
///
/// Threading: a value. Any thread.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// An exact integer.
    public static func integer(_ value: Int64) -> JSONValue { .number(.integer(value)) }

    /// An exact integer from an `Int`.
    public static func int(_ value: Int) -> JSONValue { .number(.integer(Int64(value))) }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, if this is a number written without fraction or exponent that fits `Int64`.
    public var int64Value: Int64? {
        if case .number(.integer(let value)) = self { return value }
        return nil
    }

    /// The boolean, if this is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, if this is an object.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The member named `key`, if this is an object that has one.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The kind of value with its article, for messages: "an object", "a string", ….
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number(.integer): "an integer"
        case .number(.double): "a number with a fraction or exponent"
        case .number(.outOfRange): "an out-of-range number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .number(.integer(value)) }
    public init(floatLiteral value: Double) { self = .number(.double(value)) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text of this value.
    public var description: String {
        var bytes: [UInt8] = []
        JSONOutput.appendValue(self, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
