import JSONCodec

/// One thing a `control` request did to an accessory's line: DTR or RTS set to a level, or a
/// break sent. `device.traffic` carries each as a record of its own (`direction: "control"`), so
/// that a recording holds them between the bytes (docs/trace.md, docs/replay.md).
///
/// JSON: `{"dtr":true}`, `{"rts":false}`, `{"break_ms":250}`. Inside a ``TrafficRecord`` (and a
/// trace writer's buffer) it travels as the record's bytes, ``packed``: a kind byte (0 DTR,
/// 1 RTS, 2 break), then the level (one byte) or the milliseconds (8 bytes, little-endian).
///
/// Threading: a value. Any thread.
package enum LineControl: Sendable, Hashable, CustomStringConvertible {
    case dtr(Bool)
    case rts(Bool)
    case breakSent(milliseconds: Int64)

    package var packed: [UInt8] {
        switch self {
        case .dtr(let level): return [0, level ? 1 : 0]
        case .rts(let level): return [1, level ? 1 : 0]
        case .breakSent(let ms):
            return [2] + (0..<8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: ms) >> (8 * $0)) }
        }
    }

    /// Reads ``packed``; nil for anything else.
    package init?(packed: some Collection<UInt8>) {
        let bytes = Array(packed)
        switch (bytes.first, bytes.count) {
        case (0, 2) where bytes[1] <= 1: self = .dtr(bytes[1] == 1)
        case (1, 2) where bytes[1] <= 1: self = .rts(bytes[1] == 1)
        case (2, 9):
            var value: UInt64 = 0
            for index in 0..<8 { value |= UInt64(bytes[1 + index]) << (8 * index) }
            let ms = Int64(bitPattern: value)
            guard ms >= 0 else { return nil }
            self = .breakSent(milliseconds: ms)
        default: return nil
        }
    }

    /// Appends the JSON object.
    package func appendJSON(to buffer: inout [UInt8]) {
        switch self {
        case .dtr(let level):
            JSONOutput.appendLiteral(level ? "{\"dtr\":true}" : "{\"dtr\":false}", to: &buffer)
        case .rts(let level):
            JSONOutput.appendLiteral(level ? "{\"rts\":true}" : "{\"rts\":false}", to: &buffer)
        case .breakSent(let ms):
            JSONOutput.appendLiteral("{\"break_ms\":", to: &buffer)
            JSONOutput.appendInteger(ms, to: &buffer)
            buffer.append(UInt8(ascii: "}"))
        }
    }

    /// Reads the JSON object: exactly one of `dtr`, `rts` (booleans), `break_ms` (milliseconds).
    package init(json: JSONValue) throws(MessageDecodingError) {
        guard let object = json.objectValue, object.count == 1, let member = object.first else {
            throw MessageDecodingError("\"control\" must be an object with one of \"dtr\", \"rts\", \"break_ms\"")
        }
        switch (member.key, member.value) {
        case ("dtr", .bool(let level)): self = .dtr(level)
        case ("rts", .bool(let level)): self = .rts(level)
        case ("break_ms", .number(.integer(let ms))) where ms >= 0: self = .breakSent(milliseconds: ms)
        default:
            throw MessageDecodingError(
                "\"control\" must be {\"dtr\": boolean}, {\"rts\": boolean} or {\"break_ms\": milliseconds}"
            )
        }
    }

    /// `dtr on`, `rts off`, `break 250 ms`: as trace files and `accessoryctl trace` show it.
    package var description: String {
        switch self {
        case .dtr(let level): return "dtr \(level ? "on" : "off")"
        case .rts(let level): return "rts \(level ? "on" : "off")"
        case .breakSent(let ms): return "break \(ms) ms"
        }
    }
}
