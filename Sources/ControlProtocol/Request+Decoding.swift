extension Request {
    /// The members a request object may have.
    static let members = ["jsonrpc", "id", "method", "params"]

    /// Decodes one request line (without its `\n`; a trailing `\r` is whitespace).
    ///
    /// The checks, in order, and what a failure sends back:
    /// - not JSON (malformed, invalid UTF-8, nested deeper than `maxDepth`): -32700, id `null`;
    /// - an array (a batch; not supported) or any non-object: -32600, id `null`;
    /// - `id` missing (a notification), `null`, or not an integer/string (a float, a boolean, an
    ///   object, an array, an integer beyond 64 bits): -32600, id `null`. This daemon does not
    ///   accept notifications: every method has a result, so a request without an id is a
    ///   mistake and is answered with an error rather than silently dropped;
    /// - `jsonrpc` not exactly `"2.0"`, `method` missing or not a string, `params` neither an
    ///   object nor absent/`null`, or an unknown member: -32600 with the id;
    /// - an unknown method: -32601; params an array (by-position) or wrong params: -32602.
    public static func decode(
        _ line: some Collection<UInt8>,
        maxDepth: Int = 64
    ) throws(RequestRejection) -> Request {
        // The common requests in one pass (it needs two levels of nesting; it answers only
        // what this decoder would accept, and equally).
        if maxDepth >= 2, let fast = line.withContiguousStorageIfAvailable({ decodeFastPath($0) }) ?? nil {
            return fast
        }
        let value: JSONValue
        do throws(JSONParseError) {
            value = try JSONParser.parse(line, options: JSONParser.Options(maxDepth: maxDepth))
        } catch {
            throw RequestRejection(id: nil, error: RPCError(.parseError, "parse error: \(error)"))
        }
        return try decode(value)
    }

    /// Decodes a request from an already parsed value (see ``decode(_:maxDepth:)``).
    @_spi(Fuzzing) public static func decode(_ value: JSONValue) throws(RequestRejection) -> Request {
        func reject(_ id: RequestID?, _ error: RPCError) -> RequestRejection {
            RequestRejection(id: id, error: error)
        }
        let object: JSONObject
        switch value {
        case .object(let members):
            object = members
        case .array:
            throw reject(
                nil,
                .invalidRequest("batch requests (JSON arrays) are not supported: send one request object per line")
            )
        default:
            throw reject(nil, .invalidRequest("a request must be a JSON object (got \(value.kindDescription))"))
        }

        // One pass over the members. The parser rejects duplicate keys by default; if a caller's
        // value has them anyway, the first counts, as with `JSONObject`'s subscript.
        var versionValue: JSONValue? = nil
        var idValue: JSONValue? = nil
        var methodMember: JSONValue? = nil
        var paramsValue: JSONValue? = nil
        var unknownKey: String? = nil
        for member in object.members {
            switch member.key {
            case "jsonrpc": versionValue = versionValue ?? member.value
            case "id": idValue = idValue ?? member.value
            case "method": methodMember = methodMember ?? member.value
            case "params": paramsValue = paramsValue ?? member.value
            default: unknownKey = unknownKey ?? member.key
            }
        }

        let id: RequestID
        switch idValue {
        case nil:
            throw reject(
                nil,
                .invalidRequest(
                    "missing \"id\": notifications are not supported, every method returns a result; "
                        + "give each request an integer or string id"
                )
            )
        case .null:
            throw reject(nil, .invalidRequest("\"id\" must be an integer or a string, not null"))
        case .some(let value):
            guard let decoded = RequestID.from(value) else {
                throw reject(nil, .invalidRequest(RequestID.problem(with: value, what: "\"id\"")))
            }
            id = decoded
        }

        if let unknownKey {
            let hint = Suggestion.hint(for: unknownKey, among: members)
            throw reject(
                id,
                .invalidRequest(
                    "unknown member \(ValueDescription.quoted(unknownKey)) in the request\(hint); "
                        + "a request has jsonrpc, id, method and params"
                )
            )
        }
        guard let version = versionValue else {
            throw reject(id, .invalidRequest("missing \"jsonrpc\": \"2.0\""))
        }
        guard version == .string("2.0") else {
            throw reject(
                id,
                .invalidRequest("\"jsonrpc\" must be \"2.0\" (got \(ValueDescription.describe(version)))")
            )
        }
        guard let methodValue = methodMember else {
            throw reject(id, .invalidRequest("missing \"method\""))
        }
        guard case .string(let name) = methodValue else {
            throw reject(
                id,
                .invalidRequest("\"method\" must be a string (got \(ValueDescription.describe(methodValue)))")
            )
        }
        let params: JSONObject?
        switch paramsValue {
        case nil, .null:
            params = nil
        case .object(let members):
            params = members
        case .array:
            if MethodName(rawValue: name) == nil {
                // An unknown method is reported as such, whatever its params.
                _ = try decodeMethod(name: name, params: nil, id: id)
            }
            throw reject(
                id,
                .invalidParams("params must be an object with named members (by-position params are not supported)")
            )
        case .some(let other):
            throw reject(id, .invalidRequest("\"params\" must be an object (got \(other.kindDescription))"))
        }
        return Request(id: id, method: try decodeMethod(name: name, params: params, id: id))
    }

    private static func decodeMethod(
        name: String,
        params: JSONObject?,
        id: RequestID
    ) throws(RequestRejection) -> Method {
        do throws(RPCError) {
            return try Method.decode(name: name, params: params)
        } catch {
            throw RequestRejection(id: id, error: error)
        }
    }
}
