import JSONCodec

extension Request {
    /// The members a request object may have.
    static let members = ["jsonrpc", "id", "method", "params"]

    /// Decodes one request line (without its `\n`; a trailing `\r` is whitespace).
    ///
    /// The checks, in order, and what a failure sends back:
    /// - not JSON (malformed, invalid UTF-8, nested deeper than `maxDepth`): -32700, id `null`;
    /// - an array (a batch: ``IncomingMessage`` decodes those) or any non-object: -32600, id `null`;
    /// - `id` missing (a notification: ``IncomingMessage`` decodes those), `null`, or not an
    ///   integer/string (a float, a boolean, an object, an array, an integer beyond 64 bits):
    ///   -32600, id `null`;
    /// - `jsonrpc` not exactly `"2.0"`, `method` missing or not a string, `params` neither an
    ///   object nor absent/`null`, or an unknown member: -32600 with the id;
    /// - an unknown method: -32601; params an array (by-position) or wrong params: -32602.
    package static func decode(
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

    /// Decodes a request from an already parsed value (see ``decode(_:maxDepth:)``). A value
    /// without an `id` (a notification) is refused here: ``IncomingMessage`` is what accepts them.
    package static func decode(_ value: JSONValue) throws(RequestRejection) -> Request {
        if case .object(let object) = value, object["id"] == nil {
            throw RequestRejection(
                id: nil,
                error: .invalidRequest(
                    "missing \"id\": a request without one is a notification, executed and never answered; "
                        + "give each request an integer or string id to have its answer"
                )
            )
        }
        let envelope = try decodeEnvelope(value)
        guard let id = envelope.id else { preconditionFailure("an object with an id decoded without one") }
        do throws(RPCError) {
            return Request(id: id, method: try envelope.method())
        } catch {
            throw RequestRejection(id: id, error: error)
        }
    }

    /// A request or notification object's members, checked as far as they can be without the
    /// method's own rules. Threading: a value. Any thread.
    struct Envelope {
        /// Nil for a notification.
        var id: RequestID?
        var name: String
        var params: JSONObject?
        /// `params` was an array.
        var byPosition: Bool

        /// The typed method: -32601 for an unknown one, -32602 for wrong (or by-position) params.
        func method() throws(RPCError) -> Method {
            if byPosition {
                // An unknown method is reported as such, whatever its params.
                if MethodName(rawValue: name) == nil { _ = try Method.decode(name: name, params: nil) }
                throw .invalidParams(
                    "params must be an object with named members (by-position params are not supported)"
                )
            }
            return try Method.decode(name: name, params: params)
        }
    }

    /// Checks, in order: an object (else -32600, id `null`); `id` absent (a notification), or an
    /// integer or a string (else -32600, id `null`); no unknown member, `jsonrpc` exactly
    /// `"2.0"`, `method` a string, `params` an object, an array or absent/`null` (else -32600
    /// with the id).
    static func decodeEnvelope(_ value: JSONValue) throws(RequestRejection) -> Envelope {
        func reject(_ id: RequestID?, _ error: RPCError) -> RequestRejection {
            RequestRejection(id: id, error: error)
        }
        let object: JSONObject
        switch value {
        case .object(let members):
            object = members
        case .array:
            throw reject(nil, .invalidRequest("a JSON array (a batch) inside a batch or where one request is expected"))
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

        let id: RequestID?
        switch idValue {
        case nil:
            id = nil
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
        switch paramsValue {
        case nil, .null:
            return Envelope(id: id, name: name, params: nil, byPosition: false)
        case .object(let members):
            return Envelope(id: id, name: name, params: members, byPosition: false)
        case .array:
            return Envelope(id: id, name: name, params: nil, byPosition: true)
        case .some(let other):
            throw reject(id, .invalidRequest("\"params\" must be an object (got \(other.kindDescription))"))
        }
    }
}
