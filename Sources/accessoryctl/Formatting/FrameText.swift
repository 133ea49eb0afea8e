import ControlProtocol

/// How a frame is shown: as text when its bytes are UTF-8 (control characters written as `\r`,
/// `\n`, `\t`, `\0` or `\xNN`, so one frame is one line), else as a hex dump.
///
/// Threading: stateless. Any thread.
enum FrameText {
    static func lines(_ frame: Frame) -> [String] {
        guard let text = frame.text else { return HexDump.lines(frame.bytes) }
        return [escaped(text)]
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\r": out += "\\r"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\0": out += "\\0"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\x" + HexDump.hex(UInt64(scalar.value), width: 2)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
