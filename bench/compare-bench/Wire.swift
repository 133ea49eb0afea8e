import ControlProtocol
import JSONCodec

/// One reply as a client sees it: the request id it answers (JSON-RPC only) and its bytes.
///
/// Threading: a value. Any thread.
struct Reply {
    let id: Int?
    let payload: ArraySlice<UInt8>
}

/// How a target's requests and replies look on its connection.
///
/// Threading: a value. Any thread.
protocol Wire {
    /// The bytes that send `payload` as request `id`, newline included.
    func request(id: Int, payload: [UInt8]) -> [UInt8]
    /// The reply a line carries, or `nil` for a line that is not a reply (a notification).
    func reply(_ line: ArraySlice<UInt8>) throws -> Reply?
    /// The bytes that stream `payloads` as lines (no reply expected beyond the echoes), one
    /// request for all of them, newlines included.
    func streamRequest(id: Int, payloads: [[UInt8]]) -> [UInt8]
    /// The echoed payload a line carries, or `nil` for a line that carries none.
    func streamed(_ line: ArraySlice<UInt8>) throws -> ArraySlice<UInt8>?
}

/// A raw relay or the pty itself: a request is the payload and a newline; every line is a reply.
///
/// Threading: a value. Any thread.
struct RawWire: Wire {
    func request(id: Int, payload: [UInt8]) -> [UInt8] { payload + [0x0A] }
    func reply(_ line: ArraySlice<UInt8>) throws -> Reply? { Reply(id: nil, payload: line) }
    func streamRequest(id: Int, payloads: [[UInt8]]) -> [UInt8] {
        payloads.flatMap { request(id: id, payload: $0) }
    }
    func streamed(_ line: ArraySlice<UInt8>) throws -> ArraySlice<UInt8>? { line }
}

/// accessoryd: a request is a JSON-RPC `transact` on `device` (line framing adds the newline on
/// the serial side); a reply is the response's single frame.
///
/// Threading: a value. Any thread.
struct RPCWire: Wire {
    let device: String

    func request(id: Int, payload: [UInt8]) -> [UInt8] {
        RPCWire.line(id: id, method: "transact", params: ["device": .string(device), "data": text(payload)])
    }

    func reply(_ line: ArraySlice<UInt8>) throws -> Reply? {
        guard case .response(let response) = try ServerMessage.decode(line) else { return nil }
        guard case .int(let id) = response.id, let frames = response.result?["frames"]?.arrayValue,
            frames.count == 1, let data = frames[0]["data"]?.stringValue
        else { throw BenchError("accessoryd answered \(String(decoding: line, as: UTF8.self))") }
        return Reply(id: Int(id), payload: Array(data.utf8)[...])
    }

    /// One `write` of the lines joined by newlines (line framing appends the last one); each
    /// echoed line comes back as a `device.data` notification (the connection subscribed).
    func streamRequest(id: Int, payloads: [[UInt8]]) -> [UInt8] {
        let joined = Array(payloads.joined(separator: [0x0A]))
        return RPCWire.line(id: id, method: "write", params: ["device": .string(device), "data": text(joined)])
    }

    func streamed(_ line: ArraySlice<UInt8>) throws -> ArraySlice<UInt8>? {
        switch try ServerMessage.decode(line) {
        case .response(let response):
            if let error = response.error { throw BenchError("write failed: \(error)") }
            return nil
        case .notification(let notification):
            guard notification.method == "device.data", let data = notification.params["data"]?.stringValue else {
                return nil
            }
            return Array(data.utf8)[...]
        }
    }

    func text(_ payload: [UInt8]) -> JSONValue { .string(String(decoding: payload, as: UTF8.self)) }

    /// One request line (with its newline).
    static func line(id: Int, method: String, params: JSONObject?) -> [UInt8] {
        Request.encodedLine(id: .int(Int64(id)), method: method, params: params)
    }

    /// Sends a request and returns its response, skipping notifications (setup calls, not timed).
    static func call(_ endpoint: LineEndpoint, id: Int, method: String, params: JSONObject? = nil) throws -> Response {
        try endpoint.send(line(id: id, method: method, params: params))
        while true {
            let message = try ServerMessage.decode(try endpoint.readLine())
            if case .response(let response) = message, response.id == .int(Int64(id)) {
                if let error = response.error { throw BenchError("\(method) failed: \(error)") }
                return response
            }
        }
    }
}

/// The payload of request `sequence` of client `client`, `size` bytes of ASCII: `k<client>s<sequence>`
/// padded with dots, so that a reply names the request it answers. Any thread.
func payload(size: Int, client: Int, sequence: Int) -> [UInt8] {
    let tag = Array("k\(client)s\(sequence)".utf8)
    return Array(tag.prefix(size)) + [UInt8](repeating: UInt8(ascii: "."), count: max(0, size - tag.count))
}
