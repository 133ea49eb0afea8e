import JSONCodec

/// Writes the daemon's outgoing lines: responses and notifications, each one line ending in
/// `\n`, appended to a caller's (reused) buffer. The hot path: no intermediate `String`s.
///
/// Threading: stateless. Any thread.
package enum ResponseEncoder {
    /// `{"jsonrpc":"2.0","id":…,"result":…}\n`
    package static func success(id: RequestID, result: some JSONEncodable, into buffer: inout [UInt8]) {
        writeSuccess(id: id, to: &buffer) { result.encodeJSON(into: &$0) }
    }

    /// The envelope of a success response around what `result` writes, to any sink.
    private static func writeSuccess<Sink: JSONSink>(id: RequestID, to sink: inout Sink, result: (inout Sink) -> Void) {
        sink.append("{\"jsonrpc\":\"2.0\",\"id\":")
        id.write(to: &sink)
        sink.append(",\"result\":")
        result(&sink)
        sink.append("}\n")
    }

    /// ``success(id:result:into:)`` as a new line: for a result with an
    /// ``JSONEncodable/encodedSizeBound``, allocated once at the bound and written without
    /// appending; otherwise appended to an array sized for a small result.
    package static func successLine(id: RequestID, result: some JSONEncodable) -> [UInt8] {
        guard let bound = result.encodedSizeBound else {
            var line: [UInt8] = []
            line.reserveCapacity(128)
            success(id: id, result: result, into: &line)
            return line
        }
        // The envelope's literals are 31 bytes.
        return JSONWriter.line(capacity: 32 + id.maxEncodedCount + bound) { writer in
            writeSuccess(id: id, to: &writer) { result.encodeJSON(into: &$0) }
        }
    }

    /// ``success(id:result:into:)`` written on the stack and handed to `use` (valid only during
    /// the call), for a result whose ``JSONEncodable/encodedSizeBound`` fits
    /// ``JSONWriter/stackLimit``; otherwise false, and `use` is not called.
    package static func withSuccessLine(
        id: RequestID,
        result: some JSONEncodable,
        _ use: (UnsafeRawBufferPointer) -> Void
    ) -> Bool {
        guard let bound = result.encodedSizeBound else { return false }
        let capacity = 32 + id.maxEncodedCount + bound  // the envelope's literals are 31 bytes
        guard capacity <= JSONWriter.stackLimit else { return false }
        JSONWriter.withStackLine(
            capacity: capacity,
            { writer in writeSuccess(id: id, to: &writer) { result.encodeJSON(into: &$0) } },
            use
        )
        return true
    }

    /// `{"jsonrpc":"2.0","id":…|null,"error":{"code":…,"message":…,"data":…}}\n`
    package static func failure(id: RequestID?, error: RPCError, into buffer: inout [UInt8]) {
        JSONOutput.appendLiteral("{\"jsonrpc\":\"2.0\",\"id\":", to: &buffer)
        if let id {
            id.encodeJSON(into: &buffer)
        } else {
            JSONOutput.appendLiteral("null", to: &buffer)
        }
        JSONOutput.appendLiteral(",\"error\":", to: &buffer)
        error.encodeJSON(into: &buffer)
        JSONOutput.appendLiteral("}\n", to: &buffer)
    }

    /// `{"jsonrpc":"2.0","method":…,"params":…}\n`
    package static func notification(method: String, params: some JSONEncodable, into buffer: inout [UInt8]) {
        JSONOutput.appendLiteral("{\"jsonrpc\":\"2.0\",\"method\":", to: &buffer)
        JSONOutput.appendString(method, to: &buffer)
        JSONOutput.appendLiteral(",\"params\":", to: &buffer)
        params.encodeJSON(into: &buffer)
        JSONOutput.appendLiteral("}\n", to: &buffer)
    }

    /// `device.data` with `{device, data_base64, data?}` for one frame no request claimed.
    package static func deviceData(device: String, frame: some Collection<UInt8>, into buffer: inout [UInt8]) {
        JSONOutput.appendLiteral("{\"jsonrpc\":\"2.0\",\"method\":\"device.data\",\"params\":{\"device\":", to: &buffer)
        JSONOutput.appendString(device, to: &buffer)
        buffer.append(UInt8(ascii: ","))
        Frame.appendMembers(of: frame, to: &buffer)
        JSONOutput.appendLiteral("}}\n", to: &buffer)
    }

    /// `device.traffic` with a ``TrafficRecord``'s object.
    package static func deviceTraffic(
        device: String,
        timestampMicroseconds: Int64,
        direction: TrafficRecord.Direction,
        client: UInt64?,
        request: RequestID?,
        bytes: UnsafeBufferPointer<UInt8>,
        into buffer: inout [UInt8]
    ) {
        JSONOutput.appendLiteral("{\"jsonrpc\":\"2.0\",\"method\":\"device.traffic\",\"params\":", to: &buffer)
        TrafficRecord.encode(
            device: device,
            timestampMicroseconds: timestampMicroseconds,
            direction: direction,
            client: client,
            request: request,
            bytes: bytes,
            into: &buffer
        )
        JSONOutput.appendLiteral("}\n", to: &buffer)
    }

    /// `device.state` with `{device, state, reason}`.
    package static func deviceState(device: String, state: DeviceState, reason: String, into buffer: inout [UInt8]) {
        JSONOutput.appendLiteral(
            "{\"jsonrpc\":\"2.0\",\"method\":\"device.state\",\"params\":{\"device\":",
            to: &buffer
        )
        JSONOutput.appendString(device, to: &buffer)
        JSONOutput.appendLiteral(",\"state\":", to: &buffer)
        JSONOutput.appendString(state.rawValue, to: &buffer)
        JSONOutput.appendLiteral(",\"reason\":", to: &buffer)
        JSONOutput.appendString(reason, to: &buffer)
        JSONOutput.appendLiteral("}}\n", to: &buffer)
    }
}
