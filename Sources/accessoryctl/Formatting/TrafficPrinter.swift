import ControlProtocol
import SystemCalls
import TrafficTrace

/// Prints `trace`'s records as tio shows a line: `rx: OK\r\n` (bytes outside printable ASCII
/// escaped, one record a line), or with `--hex` a head line and a hex dump; `--timestamps`
/// starts each record with the local wall-clock time to the millisecond,
/// `[2026-11-25 13:16:35.123] `. Bytes sent name the client and request that sent them:
/// `tx (client 3, request 7): AT\r\n`; bytes read, the request that awaited them, if one did.
///
/// Threading: a value; used from one task.
struct TrafficPrinter: Sendable {
    let hex: Bool
    let timestamps: Bool

    func lines(_ record: TrafficRecord) -> [String] {
        var head = ""
        if timestamps {
            let offset = Int64(WallClock.localOffsetSeconds(atMicroseconds: record.timestampMicroseconds))
            let local = record.timestampMicroseconds + offset * 1_000_000
            head = "[" + UTCTime.string(microseconds: local, fractionDigits: 3, separator: UInt8(ascii: " ")) + "] "
        }
        head += record.direction.rawValue
        if let client = record.client {
            head += " (client \(client)" + (record.request.map { ", request \($0)" } ?? "") + ")"
        }
        head += ": "
        if let control = record.control { return [head + control.description] }
        if hex {
            return [head + "\(record.bytes.count) bytes"] + TrafficText.hexDumpLines(record.bytes, indent: 2)
        }
        return [head + TrafficText.escaped(record.bytes)]
    }

    /// The notification as the daemon sends it, without the trailing newline.
    static func jsonLine(_ record: TrafficRecord) -> String {
        var buffer: [UInt8] = []
        record.bytes.withUnsafeBufferPointer {
            ResponseEncoder.deviceTraffic(
                device: record.device,
                timestampMicroseconds: record.timestampMicroseconds,
                direction: record.direction,
                client: record.client,
                request: record.request,
                bytes: $0,
                into: &buffer
            )
        }
        if buffer.last == UInt8(ascii: "\n") { buffer.removeLast() }
        return String(decoding: buffer, as: UTF8.self)
    }
}
