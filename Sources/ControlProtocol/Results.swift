import JSONCodec

/// The result of `transact`: `{"frames":[…],"elapsed_ms":…}`.
///
/// Threading: a value. Any thread.
package struct TransactResult: Sendable, Hashable, JSONEncodable {
    /// The first frame apart from the others: a transaction's answer is one frame almost always,
    /// and an array of one is an allocation per request. Nil only when there are no frames.
    private var first: Frame?
    private var more: [Frame]
    package var elapsedMs: Int64

    /// The response frames: one, or up to and including the one matching `until`.
    package var frames: [Frame] {
        get { first.map { [$0] + more } ?? [] }
        set {
            first = newValue.first
            more = Array(newValue.dropFirst())
        }
    }

    package init(frames: [Frame], elapsedMs: Int64) {
        self.first = frames.first
        self.more = Array(frames.dropFirst())
        self.elapsedMs = elapsedMs
    }

    /// The result of `first` followed by `more`, without an array for the usual one frame.
    package init(first: Frame, more: [Frame], elapsedMs: Int64) {
        self.first = first
        self.more = more
        self.elapsedMs = elapsedMs
    }

    package var encodedSizeBound: Int? {
        let firstBound = first.map { Frame.maxEncodedCount($0.bytes.count) + 3 } ?? 0
        return framesMaxEncodedCount(more) + firstBound + 40
    }

    package func encodeJSON(into buffer: inout [UInt8]) { write(to: &buffer) }
    package func encodeJSON(into writer: inout JSONWriter) { write(to: &writer) }

    private func write(to sink: inout some JSONSink) {
        sink.append("{\"frames\":[")
        if let first {
            first.bytes.withUnsafeBufferPointer { Frame.write(of: $0, to: &sink) }
            for frame in more {
                sink.append(UInt8(ascii: ","))
                frame.bytes.withUnsafeBufferPointer { Frame.write(of: $0, to: &sink) }
            }
        }
        sink.append("],\"elapsed_ms\":")
        JSONOutput.writeInteger(elapsedMs, to: &sink)
        sink.append(UInt8(ascii: "}"))
    }

    package init(json: JSONValue) throws(MessageDecodingError) {
        self.init(frames: try decodeFrames(json), elapsedMs: try ResultField.integer(json, "elapsed_ms"))
    }
}

/// The result of `read`: `{"frames":[…]}`.
///
/// Threading: a value. Any thread.
package struct ReadResult: Sendable, Hashable, JSONEncodable {
    package var frames: [Frame]

    package init(frames: [Frame]) { self.frames = frames }

    package var encodedSizeBound: Int? { framesMaxEncodedCount(frames) + 16 }

    package func encodeJSON(into buffer: inout [UInt8]) { write(to: &buffer) }
    package func encodeJSON(into writer: inout JSONWriter) { write(to: &writer) }

    private func write(to sink: inout some JSONSink) {
        sink.append("{\"frames\":")
        writeFrames(frames, to: &sink)
        sink.append(UInt8(ascii: "}"))
    }

    package init(json: JSONValue) throws(MessageDecodingError) {
        frames = try decodeFrames(json)
    }
}

/// The result of `write`: `{"written":…}` (bytes written, framing included).
///
/// Threading: a value. Any thread.
package struct WriteResult: Sendable, Hashable, JSONEncodable {
    package var written: Int64

    package init(written: Int64) { self.written = written }

    package func encodeJSON(into buffer: inout [UInt8]) {
        JSONOutput.appendLiteral("{\"written\":", to: &buffer)
        JSONOutput.appendInteger(written, to: &buffer)
        buffer.append(UInt8(ascii: "}"))
    }

    package init(json: JSONValue) throws(MessageDecodingError) {
        written = try ResultField.integer(json, "written")
    }
}

/// The result of `cancel`: `{"cancelled":…}`; `false` when the request had already finished
/// or was never seen.
///
/// Threading: a value. Any thread.
package struct CancelResult: Sendable, Hashable, JSONEncodable {
    package var cancelled: Bool

    package init(cancelled: Bool) { self.cancelled = cancelled }

    package func encodeJSON(into buffer: inout [UInt8]) {
        JSONOutput.appendLiteral(cancelled ? "{\"cancelled\":true}" : "{\"cancelled\":false}", to: &buffer)
    }

    package init(json: JSONValue) throws(MessageDecodingError) {
        guard case .bool(let flag)? = json["cancelled"] else {
            throw MessageDecodingError("the result needs a boolean \"cancelled\"")
        }
        cancelled = flag
    }
}

/// One row of `devices.list`: `{name, state, transport, path, queue_depth}`.
///
/// Threading: a value. Any thread.
package struct DeviceSummary: Sendable, Hashable, JSONEncodable {
    package var name: String
    package var state: DeviceState
    /// `serial`, `rfcomm` or `simulated`.
    package var transport: String
    /// The device node in use or configured; `null` when none is known (e.g. an unmatched udev identity).
    package var path: String?
    package var queueDepth: Int64

    package init(name: String, state: DeviceState, transport: String, path: String?, queueDepth: Int64) {
        self.name = name
        self.state = state
        self.transport = transport
        self.path = path
        self.queueDepth = queueDepth
    }

    package func encodeJSON(into buffer: inout [UInt8]) {
        JSONOutput.appendLiteral("{\"name\":", to: &buffer)
        JSONOutput.appendString(name, to: &buffer)
        JSONOutput.appendLiteral(",\"state\":", to: &buffer)
        JSONOutput.appendString(state.rawValue, to: &buffer)
        JSONOutput.appendLiteral(",\"transport\":", to: &buffer)
        JSONOutput.appendString(transport, to: &buffer)
        JSONOutput.appendLiteral(",\"path\":", to: &buffer)
        if let path {
            JSONOutput.appendString(path, to: &buffer)
        } else {
            JSONOutput.appendLiteral("null", to: &buffer)
        }
        JSONOutput.appendLiteral(",\"queue_depth\":", to: &buffer)
        JSONOutput.appendInteger(queueDepth, to: &buffer)
        buffer.append(UInt8(ascii: "}"))
    }

    package init(json: JSONValue) throws(MessageDecodingError) {
        name = try ResultField.string(json, "name")
        let stateName = try ResultField.string(json, "state")
        guard let state = DeviceState(rawValue: stateName) else {
            throw MessageDecodingError("unknown device state \(ValueDescription.quoted(stateName))")
        }
        self.state = state
        transport = try ResultField.string(json, "transport")
        switch json["path"] {
        case nil, .null: path = nil
        case .string(let value): path = value
        case .some(let other): throw MessageDecodingError("\"path\" must be a string (got \(other.kindDescription))")
        }
        queueDepth = try ResultField.integer(json, "queue_depth")
    }
}

/// The result of `devices.list`: `{"devices":[…]}`.
///
/// Threading: a value. Any thread.
package struct DevicesListResult: Sendable, Hashable, JSONEncodable {
    package var devices: [DeviceSummary]

    package init(devices: [DeviceSummary]) { self.devices = devices }

    package func encodeJSON(into buffer: inout [UInt8]) {
        JSONOutput.appendLiteral("{\"devices\":[", to: &buffer)
        for (index, device) in devices.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            device.encodeJSON(into: &buffer)
        }
        JSONOutput.appendLiteral("]}", to: &buffer)
    }

    package init(json: JSONValue) throws(MessageDecodingError) {
        guard case .array(let rows)? = json["devices"] else {
            throw MessageDecodingError("the result needs a \"devices\" array")
        }
        var devices: [DeviceSummary] = []
        for row in rows { devices.append(try DeviceSummary(json: row)) }
        self.devices = devices
    }
}

/// The most bytes `[…]` of these frames takes.
private func framesMaxEncodedCount(_ frames: [Frame]) -> Int {
    frames.reduce(2) { $0 + Frame.maxEncodedCount($1.bytes.count) + 3 }
}

private func writeFrames(_ frames: [Frame], to sink: inout some JSONSink) {
    sink.append(UInt8(ascii: "["))
    for (index, frame) in frames.enumerated() {
        if index > 0 { sink.append(UInt8(ascii: ",")) }
        frame.bytes.withUnsafeBufferPointer { Frame.write(of: $0, to: &sink) }
    }
    sink.append(UInt8(ascii: "]"))
}

private func decodeFrames(_ json: JSONValue) throws(MessageDecodingError) -> [Frame] {
    guard case .array(let elements)? = json["frames"] else {
        throw MessageDecodingError("the result needs a \"frames\" array")
    }
    var frames: [Frame] = []
    frames.reserveCapacity(elements.count)
    for element in elements { frames.append(try Frame(json: element)) }
    return frames
}

/// Reads typed members of a result object (client side).
///
/// Threading: stateless. Any thread.
enum ResultField {
    static func integer(_ json: JSONValue, _ key: String) throws(MessageDecodingError) -> Int64 {
        guard case .number(.integer(let value))? = json[key] else {
            throw MessageDecodingError("the result needs an integer \(ValueDescription.quoted(key))")
        }
        return value
    }

    static func string(_ json: JSONValue, _ key: String) throws(MessageDecodingError) -> String {
        guard case .string(let value)? = json[key] else {
            throw MessageDecodingError("the result needs a string \(ValueDescription.quoted(key))")
        }
        return value
    }
}
