/// Cuts a session's bytes, both ways, into the lines of its log file:
/// `2026-11-25 13:20:01.042 > ATI` for what was sent, `… < OK` for what the device sent.
///
/// A line ends at CR, at LF, or at CR LF (one end, not two); it carries the time of its first
/// byte. Bytes outside printable ASCII are written `\xNN` (and a backslash `\\`), so a log
/// line is always one line of text whatever the device sends.
///
/// Threading: a value, owned by one thread.
package struct SessionLogLines: Sendable {
    package enum Direction: Sendable, Hashable {
        case toDevice, fromDevice

        var marker: String { self == .toDevice ? ">" : "<" }
    }

    /// A line in progress in one direction.
    ///
    /// Threading: a value.
    private struct Partial: Sendable {
        var text = ""
        var started: WallTime?
        var lastWasCR = false
    }

    private var sent = Partial()
    private var received = Partial()

    package init() {}

    /// The lines that `bytes` completed.
    package mutating func add(_ bytes: [UInt8], _ direction: Direction, at time: WallTime) -> [String] {
        var partial = direction == .toDevice ? sent : received
        var lines: [String] = []
        for byte in bytes {
            let wasCR = partial.lastWasCR
            partial.lastWasCR = byte == 0x0D
            if byte == 0x0A && wasCR { continue }
            if partial.started == nil { partial.started = time }
            if byte == 0x0D || byte == 0x0A {
                lines.append(Self.line(partial, direction))
                partial.text = ""
                partial.started = nil
            } else {
                Self.append(byte, to: &partial.text)
            }
        }
        if direction == .toDevice { sent = partial } else { received = partial }
        return lines
    }

    /// The unfinished lines, both ways (at the end of the session or of the log).
    package mutating func flush() -> [String] {
        var lines: [String] = []
        if sent.started != nil { lines.append(Self.line(sent, .toDevice)) }
        if received.started != nil { lines.append(Self.line(received, .fromDevice)) }
        sent = Partial()
        received = Partial()
        return lines
    }

    private static func line(_ partial: Partial, _ direction: Direction) -> String {
        (partial.started?.dateAndTime ?? "") + " " + direction.marker + " " + partial.text
    }

    private static func append(_ byte: UInt8, to text: inout String) {
        switch byte {
        case UInt8(ascii: "\\"): text += "\\\\"
        case 0x20..<0x7F: text.unicodeScalars.append(UnicodeScalar(byte))
        default: text += "\\x" + String(decoding: ScreenRenderer.hexDigits(byte), as: UTF8.self)
        }
    }
}
