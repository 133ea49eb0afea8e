/// Bytes as people read them in a trace: escaped text and hex dumps.
///
/// Threading: stateless. Any thread.
package enum TrafficText {
    /// Appends `bytes` as printable ASCII: `\r`, `\n`, `\t`, `\0`, `\\` and `\xNN` for every
    /// other byte outside 0x20 ... 0x7E (UTF-8 included), so one record stays one line and the
    /// text gives back exactly the bytes (``unescape(_:)``).
    package static func escape(_ bytes: UnsafeBufferPointer<UInt8>, into buffer: inout [UInt8]) {
        for byte in bytes {
            switch byte {
            case 0x0D: buffer.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x0A: buffer.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x09: buffer.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x00: buffer.append(contentsOf: [0x5C, UInt8(ascii: "0")])
            case 0x5C: buffer.append(contentsOf: [0x5C, 0x5C])
            case 0x20...0x7E: buffer.append(byte)
            default: buffer.append(contentsOf: [0x5C, UInt8(ascii: "x"), hexDigit(byte >> 4), hexDigit(byte & 0xF)])
            }
        }
    }

    /// ``escape(_:into:)`` as a string.
    package static func escaped(_ bytes: [UInt8]) -> String {
        var buffer: [UInt8] = []
        bytes.withUnsafeBufferPointer { escape($0, into: &buffer) }
        return String(decoding: buffer, as: UTF8.self)
    }

    /// The bytes an escaped text stands for, or `nil` if it is not what ``escape(_:into:)`` writes.
    package static func unescape(_ text: some Collection<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        var iterator = text.makeIterator()
        while let byte = iterator.next() {
            guard byte == 0x5C else {
                out.append(byte)
                continue
            }
            switch iterator.next() {
            case UInt8(ascii: "r")?: out.append(0x0D)
            case UInt8(ascii: "n")?: out.append(0x0A)
            case UInt8(ascii: "t")?: out.append(0x09)
            case UInt8(ascii: "0")?: out.append(0x00)
            case 0x5C?: out.append(0x5C)
            case UInt8(ascii: "x")?:
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                out.append(high << 4 | low)
            default: return nil
            }
        }
        return out
    }

    /// Appends `hexdump -C`-style lines, each starting with `indent` spaces: the offset, sixteen
    /// bytes in two groups of eight, and the printable ASCII between bars.
    package static func hexDump(_ bytes: UnsafeBufferPointer<UInt8>, indent: Int, into buffer: inout [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            buffer.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent))
            for shift in stride(from: 28, through: 0, by: -4) { buffer.append(hexDigit(UInt8(offset >> shift & 0xF))) }
            buffer.append(UInt8(ascii: " "))
            for column in 0..<16 {
                if column == 8 { buffer.append(UInt8(ascii: " ")) }
                let index = offset + column
                if index < bytes.count {
                    buffer.append(contentsOf: [
                        UInt8(ascii: " "), hexDigit(bytes[index] >> 4), hexDigit(bytes[index] & 0xF),
                    ])
                } else {
                    buffer.append(contentsOf: "   ".utf8)
                }
            }
            buffer.append(contentsOf: "  |".utf8)
            for index in offset..<min(offset + 16, bytes.count) {
                let byte = bytes[index]
                buffer.append(byte >= 0x20 && byte < 0x7F ? byte : UInt8(ascii: "."))
            }
            buffer.append(contentsOf: "|\n".utf8)
            offset += 16
        }
    }

    /// ``hexDump(_:indent:into:)`` as lines without their newlines.
    package static func hexDumpLines(_ bytes: [UInt8], indent: Int = 0) -> [String] {
        var buffer: [UInt8] = []
        bytes.withUnsafeBufferPointer { hexDump($0, indent: indent, into: &buffer) }
        return buffer.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
