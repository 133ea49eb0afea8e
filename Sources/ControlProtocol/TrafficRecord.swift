import JSONCodec

/// Bytes that went to or came from an accessory, as `device.traffic` notifications and trace
/// files carry them: when (wall clock, microseconds), which way, and which client's request
/// sent them (`tx`) or was waiting for its answer when they were read (`rx`).
///
/// As JSON (the notification's params; one line of a `jsonl` trace file):
/// `{"device":"modem","timestamp":"2026-11-25T12:16:35.123456Z","timestamp_us":1795608995123456,`
/// `"direction":"tx","client":3,"request":7,"data_base64":"QVQNCg=="}`. On `tx`, the request
/// that sent the bytes (a raw `attach` session's bytes carry the `attach` request's id); on
/// `rx`, the `transact` or `read` that took the frame they end, if one did.
///
/// A `control` record is a DTR or RTS set or a break sent by a `control` request (its client and
/// request, as on `tx`), with `"control":{"dtr":false}` (``LineControl``) instead of
/// `data_base64`; in the value, its ``bytes`` are the change, ``LineControl/packed``.
///
/// Threading: a value. Any thread.
package struct TrafficRecord: Sendable, Hashable {
    /// `rx`: from the device; `tx`: to the device.
    ///
    /// Threading: a value. Any thread.
    package enum Direction: String, Sendable, Hashable, CaseIterable {
        case rx
        case tx
        /// A modem line set or a break sent (``TrafficRecord/control``).
        case control
    }

    package var device: String
    /// Microseconds since the Unix epoch (UTC).
    package var timestampMicroseconds: Int64
    package var direction: Direction
    /// The client whose request wrote the bytes (`tx`), or awaited them (`rx`).
    package var client: UInt64?
    /// That request's id.
    package var request: RequestID?
    package var bytes: [UInt8]

    /// For a `control` record, what was done to the line.
    package var control: LineControl? { direction == .control ? LineControl(packed: bytes) : nil }

    package init(
        device: String,
        timestampMicroseconds: Int64,
        direction: Direction,
        client: UInt64? = nil,
        request: RequestID? = nil,
        bytes: [UInt8]
    ) {
        self.device = device
        self.timestampMicroseconds = timestampMicroseconds
        self.direction = direction
        self.client = client
        self.request = request
        self.bytes = bytes
    }

    /// Appends the record's JSON object (see the type's documentation).
    package static func encode(
        device: String,
        timestampMicroseconds: Int64,
        direction: Direction,
        client: UInt64?,
        request: RequestID?,
        bytes: UnsafeBufferPointer<UInt8>,
        into buffer: inout [UInt8]
    ) {
        appendHead(device: device, timestampMicroseconds: timestampMicroseconds, into: &buffer)
        JSONOutput.appendLiteral(",\"direction\":", to: &buffer)
        JSONOutput.appendString(direction.rawValue, to: &buffer)
        if let client {
            JSONOutput.appendLiteral(",\"client\":", to: &buffer)
            // Client ids count up from 1; an id beyond Int64 would take 292 years of connections.
            JSONOutput.appendInteger(Int64(clamping: client), to: &buffer)
        }
        if let request {
            JSONOutput.appendLiteral(",\"request\":", to: &buffer)
            request.encodeJSON(into: &buffer)
        }
        if direction == .control, let control = LineControl(packed: bytes) {
            JSONOutput.appendLiteral(",\"control\":", to: &buffer)
            control.appendJSON(to: &buffer)
            buffer.append(UInt8(ascii: "}"))
            return
        }
        JSONOutput.appendLiteral(",\"data_base64\":\"", to: &buffer)
        Base64.encode(bytes, into: &buffer)
        JSONOutput.appendLiteral("\"}", to: &buffer)
    }

    /// Appends a trace file's mark for bytes the trace had no room for:
    /// `{"device":…,"timestamp":…,"timestamp_us":…,"dropped_bytes":N}`.
    package static func encodeDropped(
        device: String,
        timestampMicroseconds: Int64,
        droppedBytes: Int64,
        into buffer: inout [UInt8]
    ) {
        appendHead(device: device, timestampMicroseconds: timestampMicroseconds, into: &buffer)
        JSONOutput.appendLiteral(",\"dropped_bytes\":", to: &buffer)
        JSONOutput.appendInteger(droppedBytes, to: &buffer)
        buffer.append(UInt8(ascii: "}"))
    }

    private static func appendHead(device: String, timestampMicroseconds: Int64, into buffer: inout [UInt8]) {
        JSONOutput.appendLiteral("{\"device\":", to: &buffer)
        JSONOutput.appendString(device, to: &buffer)
        JSONOutput.appendLiteral(",\"timestamp\":\"", to: &buffer)
        UTCTime.append(
            microseconds: timestampMicroseconds,
            fractionDigits: 6,
            separator: UInt8(ascii: "T"),
            to: &buffer
        )
        JSONOutput.appendLiteral("Z\",\"timestamp_us\":", to: &buffer)
        JSONOutput.appendInteger(timestampMicroseconds, to: &buffer)
    }

    /// Decodes the JSON object (client side). `data_base64` and `timestamp_us` are authoritative.
    package init(json: JSONValue) throws(MessageDecodingError) {
        device = try ResultField.string(json, "device")
        timestampMicroseconds = try ResultField.integer(json, "timestamp_us")
        let name = try ResultField.string(json, "direction")
        guard let direction = Direction(rawValue: name) else {
            throw MessageDecodingError("unknown traffic direction \(ValueDescription.quoted(name))")
        }
        self.direction = direction
        switch json["client"] {
        case nil, .null: client = nil
        case .number(.integer(let value))? where value >= 0: client = UInt64(value)
        case .some(let other):
            throw MessageDecodingError("\"client\" must be a client id (got \(other.kindDescription))")
        }
        switch json["request"] {
        case nil, .null: request = nil
        case .some(let value):
            guard let id = RequestID.from(value) else {
                throw MessageDecodingError(RequestID.problem(with: value, what: "\"request\""))
            }
            request = id
        }
        if direction == .control {
            bytes = try LineControl(json: json["control"] ?? .null).packed
            return
        }
        let encoded = try ResultField.string(json, "data_base64")
        do throws(Base64Error) {
            bytes = try Base64.decode(encoded)
        } catch {
            throw MessageDecodingError("a traffic record's data_base64 is not valid base64: \(error)")
        }
    }
}
