import JSONCodec

/// Why a line from the daemon could not be understood (client side).
///
/// Threading: a value. Any thread.
package struct MessageDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    package var message: String

    package init(_ message: String) { self.message = message }

    package var description: String { message }
}

/// A response to one request (client side): its id (`nil` when the daemon could not read the
/// request's id) and either a result or an error.
///
/// Threading: a value. Any thread.
package struct Response: Sendable, Hashable {
    package var id: RequestID?
    package var outcome: Result<JSONValue, RPCError>

    package init(id: RequestID?, outcome: Result<JSONValue, RPCError>) {
        self.id = id
        self.outcome = outcome
    }

    /// The result, if the request succeeded.
    package var result: JSONValue? {
        if case .success(let value) = outcome { return value }
        return nil
    }

    /// The error, if it failed.
    package var error: RPCError? {
        if case .failure(let error) = outcome { return error }
        return nil
    }
}

/// A notification from the daemon (client side): `device.data`, `device.state` or
/// `device.traffic`, or one a
/// newer daemon sends that this client does not know (keep it or ignore it).
///
/// Threading: a value. Any thread.
package struct NotificationMessage: Sendable, Hashable {
    package var method: String
    package var params: JSONObject

    package init(method: String, params: JSONObject) {
        self.method = method
        self.params = params
    }

    /// The typed event, or `nil` for a method other than `device.data` / `device.state` /
    /// `device.traffic`.
    package func event() throws(MessageDecodingError) -> DeviceEvent? {
        let value = JSONValue.object(params)
        switch method {
        case "device.data":
            return .data(device: try ResultField.string(value, "device"), frame: try Frame(json: value))
        case "device.state":
            let name = try ResultField.string(value, "state")
            guard let state = DeviceState(rawValue: name) else {
                throw MessageDecodingError("unknown device state \(ValueDescription.quoted(name))")
            }
            let reason: String
            switch params["reason"] {
            case nil, .null: reason = ""
            case .string(let text): reason = text
            case .some(let other):
                throw MessageDecodingError("\"reason\" must be a string (got \(other.kindDescription))")
            }
            return .state(device: try ResultField.string(value, "device"), state: state, reason: reason)
        case "device.traffic":
            return .traffic(try TrafficRecord(json: value))
        default:
            return nil
        }
    }
}

/// A typed notification.
///
/// Threading: a value. Any thread.
package enum DeviceEvent: Sendable, Hashable {
    /// A frame no request claimed (or matching `unsolicited`).
    case data(device: String, frame: Frame)
    /// The accessory changed state.
    case state(device: String, state: DeviceState, reason: String)
    /// Bytes to or from the accessory (subscribed with `events: ["traffic"]`).
    case traffic(TrafficRecord)
}

/// One line from the daemon (client side).
///
/// Threading: a value. Any thread.
package enum ServerMessage: Sendable, Hashable {
    case response(Response)
    case notification(NotificationMessage)

    /// Decodes one line (without its `\n`).
    package static func decode(_ line: some Collection<UInt8>) throws(MessageDecodingError) -> ServerMessage {
        let value: JSONValue
        do throws(JSONParseError) {
            value = try JSONParser.parse(line)
        } catch {
            throw MessageDecodingError("the daemon sent a line that is not JSON: \(error)")
        }
        guard case .object(let object) = value else {
            throw MessageDecodingError("the daemon sent \(value.kindDescription), not an object")
        }
        guard object["jsonrpc"] == .string("2.0") else {
            throw MessageDecodingError("the daemon's message lacks \"jsonrpc\": \"2.0\"")
        }
        if object["id"] == nil, case .string(let method)? = object["method"] {
            switch object["params"] {
            case nil, .null:
                return .notification(NotificationMessage(method: method, params: JSONObject()))
            case .object(let params):
                return .notification(NotificationMessage(method: method, params: params))
            case .some(let other):
                throw MessageDecodingError("notification params must be an object (got \(other.kindDescription))")
            }
        }
        let id: RequestID?
        switch object["id"] {
        case nil:
            throw MessageDecodingError("the daemon's response has no \"id\"")
        case .null:
            id = nil
        case .some(let value):
            guard let decoded = RequestID.from(value) else {
                throw MessageDecodingError(RequestID.problem(with: value, what: "the response's id"))
            }
            id = decoded
        }
        switch (object["result"], object["error"]) {
        case (.some(let result), nil):
            return .response(Response(id: id, outcome: .success(result)))
        case (nil, .some(let error)):
            return .response(Response(id: id, outcome: .failure(try decodeError(error))))
        default:
            throw MessageDecodingError("a response must have exactly one of \"result\" and \"error\"")
        }
    }

    private static func decodeError(_ value: JSONValue) throws(MessageDecodingError) -> RPCError {
        guard case .number(.integer(let code))? = value["code"], let code = Int(exactly: code) else {
            throw MessageDecodingError("an error response needs an integer \"code\"")
        }
        guard case .string(let message)? = value["message"] else {
            throw MessageDecodingError("an error response needs a string \"message\"")
        }
        return RPCError(code: code, message: message, data: value["data"])
    }
}
