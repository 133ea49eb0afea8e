import JSONCodec

extension Request {
    /// Appends the request line `{"jsonrpc":"2.0","id":…,"method":…,"params":{…}}\n` (client
    /// side). `params` is omitted for methods that take none.
    func encode(into buffer: inout [UInt8]) {
        Request.encodeLine(id: id, method: method.name.rawValue, params: method.params, into: &buffer)
    }

    /// The request line, ending in `\n`.
    package var line: [UInt8] {
        var buffer: [UInt8] = []
        encode(into: &buffer)
        return buffer
    }

    /// The request line of a method this module has no typed ``Method`` for (a newer server's, or
    /// a deliberately malformed one in a test), written by the same encoder as ``line``:
    /// `{"jsonrpc":"2.0","id":…,"method":…,"params":…}\n`, `params` omitted when nil.
    package static func encodedLine(id: RequestID, method: String, params: JSONObject?) -> [UInt8] {
        var buffer: [UInt8] = []
        encodeLine(id: id, method: method, params: params, into: &buffer)
        return buffer
    }

    /// The one writer of request lines (``line`` and ``encodedLine(id:method:params:)``).
    static func encodeLine(id: RequestID, method: String, params: JSONObject?, into buffer: inout [UInt8]) {
        JSONOutput.appendLiteral("{\"jsonrpc\":\"2.0\",\"id\":", to: &buffer)
        id.encodeJSON(into: &buffer)
        JSONOutput.appendLiteral(",\"method\":", to: &buffer)
        JSONOutput.appendString(method, to: &buffer)
        if let params {
            JSONOutput.appendLiteral(",\"params\":", to: &buffer)
            JSONOutput.appendObject(params, to: &buffer)
        }
        JSONOutput.appendLiteral("}\n", to: &buffer)
    }
}

extension Method {
    /// The params object as sent, or `nil` for methods without params. A payload is sent as
    /// `data` when it is valid UTF-8 and as `data_base64` otherwise.
    var params: JSONObject? {
        switch self {
        case .devicesList, .daemonStatus, .clientsList:
            return nil
        case .clientDisconnect(let params):
            return ["id": .integer(Int64(clamping: params.id))]
        case .deviceStatus(let params), .unlock(let params):
            return ["device": .string(params.device)]
        case .transact(let params), .write(let params):
            var object: JSONObject = ["device": .string(params.device)]
            if UTF8Validation.isValid(params.data) {
                object.append("data", .string(String(decoding: params.data, as: UTF8.self)))
            } else {
                object.append("data_base64", .string(Base64.encodedString(params.data)))
            }
            object.appendIfPresent("timeout_ms", params.timeoutMs)
            object.appendIfPresent("wait_ms", params.waitMs)
            return object
        case .read(let params):
            var object: JSONObject = ["device": .string(params.device)]
            object.appendIfPresent("timeout_ms", params.timeoutMs)
            object.appendIfPresent("max_frames", params.maxFrames)
            return object
        case .subscribe(let params), .unsubscribe(let params):
            var object = JSONObject()
            if let device = params.device { object.append("device", .string(device)) }
            if let events = params.events {
                let names = EventKind.allCases.filter(events.contains).map { JSONValue.string($0.rawValue) }
                object.append("events", .array(names))
            }
            return object
        case .lock(let params):
            var object: JSONObject = ["device": .string(params.device)]
            object.appendIfPresent("timeout_ms", params.timeoutMs)
            object.appendIfPresent("lease_ms", params.leaseMs)
            return object
        case .attach(let params):
            var object: JSONObject = ["device": .string(params.device)]
            object.appendIfPresent("wait_ms", params.waitMs)
            return object
        case .cancel(let params):
            return ["id": params.id.json]
        case .control(let params):
            return params.json
        }
    }
}

extension JSONObject {
    fileprivate mutating func appendIfPresent(_ key: String, _ value: Int64?) {
        if let value { append(key, .integer(value)) }
    }
}
