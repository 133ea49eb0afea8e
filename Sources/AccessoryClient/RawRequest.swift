import ControlProtocol

/// Request lines this library writes without a typed `Method`.
///
/// Threading: stateless. Any thread.
enum RawRequest {
    /// `{"jsonrpc":"2.0","id":…,"method":…,"params":…}\n`; `params` omitted when nil.
    static func line(id: RequestID, method: String, params: JSONObject?) -> [UInt8] {
        var buffer: [UInt8] = []
        JSONOutput.appendLiteral("{\"jsonrpc\":\"2.0\",\"id\":", to: &buffer)
        id.encodeJSON(into: &buffer)
        JSONOutput.appendLiteral(",\"method\":", to: &buffer)
        JSONOutput.appendString(method, to: &buffer)
        if let params {
            JSONOutput.appendLiteral(",\"params\":", to: &buffer)
            JSONOutput.appendObject(params, to: &buffer)
        }
        JSONOutput.appendLiteral("}\n", to: &buffer)
        return buffer
    }

    /// `line` ending in exactly the `\n` it had, or one more.
    static func terminated(_ line: [UInt8]) -> [UInt8] {
        line.last == UInt8(ascii: "\n") ? line : line + [UInt8(ascii: "\n")]
    }
}
