import JSONCodec

/// Reads one method's params object with invalid-params errors a person understands, such as
/// `params.timeout_ms must be a positive integer (got "abc")`.
///
/// A member whose value is `null` counts as absent.
///
/// Threading: a value. Any thread.
struct ParamReader {
    let method: MethodName
    let object: JSONObject

    /// Rejects any member not in `accepted`, naming it.
    init(method: MethodName, params: JSONObject, accepted: [String]) throws(RPCError) {
        self.method = method
        self.object = params
        for member in params.members where !accepted.contains(member.key) {
            let name = ValueDescription.truncated(member.key)
            if accepted.isEmpty {
                throw .invalidParams("\(method.rawValue) takes no params (got params.\(name))")
            }
            let hint = Suggestion.hint(for: member.key, among: accepted)
            throw .invalidParams(
                "unknown parameter params.\(name) for \(method.rawValue)\(hint); "
                    + "accepted: \(accepted.joined(separator: ", "))"
            )
        }
    }

    func value(_ key: String) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    func required<T>(_ key: String, _ read: (String) throws(RPCError) -> T?) throws(RPCError) -> T {
        guard let value = try read(key) else { throw .invalidParams("params.\(key) is required") }
        return value
    }

    /// An accessory name: a non-empty string.
    func device(_ key: String = "device") throws(RPCError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let name) = value, !name.isEmpty else {
            throw .invalidParams(
                "params.\(key) must be an accessory name (a non-empty string) (got \(ValueDescription.describe(value)))"
            )
        }
        return name
    }

    /// An integer in `range`. `what` says what is expected ("a positive integer").
    func integer(_ key: String, in range: ClosedRange<Int64>, what: String) throws(RPCError) -> Int64? {
        guard let value = value(key) else { return nil }
        if case .number(.integer(let integer)) = value, range.contains(integer) { return integer }
        let got = ValueDescription.describe(value)
        switch value {
        case .number(.integer(let integer)) where integer > range.upperBound:
            throw .invalidParams("params.\(key) must be at most \(range.upperBound) (got \(got))")
        case .number(.outOfRange(let text)) where !text.hasPrefix("-"):
            throw .invalidParams("params.\(key) must be \(what) no greater than \(range.upperBound) (got \(got))")
        default:
            throw .invalidParams("params.\(key) must be \(what) (got \(got))")
        }
    }

    /// A duration in milliseconds: 1 ... one day.
    func milliseconds(_ key: String, allowZero: Bool = false) throws(RPCError) -> Int64? {
        let what = allowZero ? "a non-negative integer (milliseconds)" : "a positive integer (milliseconds)"
        return try integer(key, in: (allowZero ? 0 : 1)...ParamLimits.maxMilliseconds, what: what)
    }

    /// The payload: exactly one of `data` (UTF-8 text) and `data_base64`.
    func payload() throws(RPCError) -> [UInt8] {
        let text = value("data")
        let encoded = value("data_base64")
        switch (text, encoded) {
        case (.some, .some):
            throw .invalidParams("give either params.data (text) or params.data_base64, not both")
        case (nil, nil):
            throw .invalidParams("params.data (text) or params.data_base64 is required")
        case (.some(let value), nil):
            guard case .string(let string) = value else {
                throw .invalidParams(
                    "params.data must be a string (got \(ValueDescription.describe(value))); "
                        + "send binary payloads as params.data_base64"
                )
            }
            return Array(string.utf8)
        case (nil, .some(let value)):
            guard case .string(let string) = value else {
                throw .invalidParams(
                    "params.data_base64 must be a base64 string (got \(ValueDescription.describe(value)))"
                )
            }
            do throws(Base64Error) {
                return try Base64.decode(string)
            } catch {
                throw .invalidParams("params.data_base64 is not valid base64: \(error)")
            }
        }
    }

    /// `events`: a non-empty array of "data" / "state" / "traffic" / "lines".
    func events() throws(RPCError) -> Set<EventKind>? {
        guard let value = value("events") else { return nil }
        let names = EventKind.allCases.map { "\"\($0.rawValue)\"" }
        let accepted = names.dropLast().joined(separator: ", ") + " or " + names.last!
        guard case .array(let elements) = value else {
            throw .invalidParams(
                "params.events must be an array of \(accepted) (got \(ValueDescription.describe(value)))"
            )
        }
        guard !elements.isEmpty else {
            throw .invalidParams("params.events must not be empty (omit it for data and state)")
        }
        var kinds = Set<EventKind>()
        for (index, element) in elements.enumerated() {
            guard case .string(let name) = element, let kind = EventKind(rawValue: name) else {
                throw .invalidParams(
                    "params.events[\(index)] must be \(accepted) (got \(ValueDescription.describe(element)))"
                )
            }
            kinds.insert(kind)
        }
        return kinds
    }

    /// A request id (for `cancel`).
    func requestID(_ key: String) throws(RPCError) -> RequestID? {
        guard let value = value(key) else { return nil }
        guard let id = RequestID.from(value) else {
            throw .invalidParams(RequestID.problem(with: value, what: "params.\(key)"))
        }
        return id
    }
}
