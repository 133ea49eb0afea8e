import ControlProtocol

/// How a trace file shows traffic: one record (a read from, or a write to, the device) at a time.
///
/// - `text`: one line a record, `2026-11-25T12:16:35.123456Z tx client 3 request 7: AT\r\n`, the
///   bytes escaped (``TrafficText/escape(_:into:)``) so that the line gives them back exactly.
/// - `hexdump`: the same head ending in `: 4 bytes`, then `hexdump -C` lines indented by two.
/// - `jsonl`: one JSON object a line, the `device.traffic` notification's params
///   (``TrafficRecord``).
///
/// Bytes the trace had no room for are marked where they were left out:
/// `2026-11-25T12:16:35.123456Z … 1234 bytes dropped …` (`jsonl`: `{…,"dropped_bytes":1234}`).
///
/// Threading: a value. Any thread.
package enum TraceLayout: String, Sendable, CaseIterable {
    case text
    case hexdump
    case jsonl

    /// Appends one record in this layout, ending with a newline.
    package func append(
        device: String,
        timestampMicroseconds: Int64,
        direction: TrafficRecord.Direction,
        client: UInt64?,
        request: RequestID?,
        bytes: UnsafeBufferPointer<UInt8>,
        to buffer: inout [UInt8]
    ) {
        appendRecord(timestampMicroseconds: timestampMicroseconds, to: &buffer) { buffer in
            TrafficRecord.encode(
                device: device,
                timestampMicroseconds: timestampMicroseconds,
                direction: direction,
                client: client,
                request: request,
                bytes: bytes,
                into: &buffer
            )
        } text: { buffer in
            buffer.append(contentsOf: direction.rawValue.utf8)
            if let client {
                buffer.append(contentsOf: " client ".utf8)
                buffer.append(contentsOf: String(client).utf8)
            }
            if let request {
                buffer.append(contentsOf: " request ".utf8)
                request.encodeJSON(into: &buffer)
            }
            buffer.append(contentsOf: ": ".utf8)
            if direction == .control, let control = LineControl(packed: bytes) {
                buffer.append(contentsOf: "\(control)\n".utf8)
            } else if self == .text {
                TrafficText.escape(bytes, into: &buffer)
                buffer.append(UInt8(ascii: "\n"))
            } else {
                buffer.append(contentsOf: "\(bytes.count) bytes\n".utf8)
                TrafficText.hexDump(bytes, indent: 2, into: &buffer)
            }
        }
    }

    /// Appends the mark for `count` bytes left out, ending with a newline.
    package func appendDropped(device: String, timestampMicroseconds: Int64, count: Int64, to buffer: inout [UInt8]) {
        appendRecord(timestampMicroseconds: timestampMicroseconds, to: &buffer) { buffer in
            TrafficRecord.encodeDropped(
                device: device,
                timestampMicroseconds: timestampMicroseconds,
                droppedBytes: count,
                into: &buffer
            )
        } text: { buffer in
            buffer.append(contentsOf: "… \(count) bytes dropped …\n".utf8)
        }
    }

    /// The framing every line shares: in `jsonl` the object `json` writes and a newline; in the
    /// text layouts the UTC time to the microsecond and `Z `, then what `text` writes (which ends
    /// the line).
    private func appendRecord(
        timestampMicroseconds: Int64,
        to buffer: inout [UInt8],
        json: (inout [UInt8]) -> Void,
        text: (inout [UInt8]) -> Void
    ) {
        if self == .jsonl {
            json(&buffer)
            buffer.append(UInt8(ascii: "\n"))
            return
        }
        UTCTime.append(
            microseconds: timestampMicroseconds,
            fractionDigits: 6,
            separator: UInt8(ascii: "T"),
            to: &buffer
        )
        buffer.append(contentsOf: "Z ".utf8)
        text(&buffer)
    }
}
