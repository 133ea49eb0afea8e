import ControlProtocol
import JSONCodec

/// Request lines this library writes without a typed `Method`.
///
/// Threading: stateless. Any thread.
enum RawRequest {
    /// `{"jsonrpc":"2.0","id":…,"method":…,"params":…}\n`; `params` omitted when nil. Written by
    /// ControlProtocol's request encoder, the one that writes typed requests.
    static func line(id: RequestID, method: String, params: JSONObject?) -> [UInt8] {
        Request.encodedLine(id: id, method: method, params: params)
    }

    /// `line` ending in exactly the `\n` it had, or one more.
    static func terminated(_ line: [UInt8]) -> [UInt8] {
        line.last == UInt8(ascii: "\n") ? line : line + [UInt8(ascii: "\n")]
    }
}
