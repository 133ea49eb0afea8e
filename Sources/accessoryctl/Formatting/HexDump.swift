/// `hexdump -C`-style lines: offset, sixteen bytes in two groups of eight, and the printable
/// ASCII between bars.
///
/// Threading: stateless. Any thread.
enum HexDump {
    static func lines(_ bytes: [UInt8]) -> [String] {
        guard !bytes.isEmpty else { return ["00000000  |(empty)|"] }
        var lines: [String] = []
        var offset = 0
        while offset < bytes.count {
            let row = bytes[offset..<min(offset + 16, bytes.count)]
            var text = hex(UInt64(offset), width: 8) + " "
            for column in 0..<16 {
                if column == 8 { text += " " }
                let index = offset + column
                text += index < bytes.count ? " " + hex(UInt64(bytes[index]), width: 2) : "   "
            }
            text += "  |" + String(decoding: row.map(printable), as: UTF8.self) + "|"
            lines.append(text)
            offset += 16
        }
        return lines
    }

    /// Lowercase hex of `value`, zero-padded to `width` digits.
    static func hex(_ value: UInt64, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func printable(_ byte: UInt8) -> UInt8 {
        byte >= 0x20 && byte < 0x7F ? byte : UInt8(ascii: ".")
    }
}
