/// Turns the device's bytes into what the terminal shows: as they are, or as hexadecimal (16
/// bytes a line), with the wall-clock time at the start of each line when timestamps are on.
///
/// The terminal is in raw mode (no output processing), so the lines it starts itself end with
/// CR LF. In text mode a line starts after each LF the device sends.
///
/// Threading: a value, owned by one thread.
package struct ScreenRenderer: Sendable {
    package static let hexBytesPerLine = 16

    package private(set) var hex: Bool
    package private(set) var timestamps: Bool
    /// Nothing has been shown on the current line yet.
    package private(set) var atLineStart = true
    private var hexColumn = 0

    package init(hex: Bool = false, timestamps: Bool = false) {
        self.hex = hex
        self.timestamps = timestamps
    }

    /// What to write for the device's `bytes`, which arrived at `time`.
    package mutating func render(_ bytes: [UInt8], at time: WallTime) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * (hex ? 3 : 1) + 16)
        for byte in bytes {
            if atLineStart {
                if timestamps { out += Array("[\(time.timeOfDay)] ".utf8) }
                atLineStart = false
            }
            if hex {
                if hexColumn > 0 { out.append(0x20) }
                out += Self.hexDigits(byte)
                hexColumn += 1
                if hexColumn == Self.hexBytesPerLine { out += endLine() }
            } else {
                out.append(byte)
                if byte == 0x0A { atLineStart = true }
            }
        }
        return out
    }

    /// Switches the hexadecimal view; returns what ends the line in progress, so that the new
    /// view starts on a line of its own.
    package mutating func setHex(_ on: Bool) -> [UInt8] {
        let ending = atLineStart ? [] : endLine()
        hex = on
        return ending
    }

    package mutating func setTimestamps(_ on: Bool) { timestamps = on }

    /// Ends the line in progress (before a message of the program's own); empty at a line start.
    package mutating func breakLine() -> [UInt8] { atLineStart ? [] : endLine() }

    private mutating func endLine() -> [UInt8] {
        atLineStart = true
        hexColumn = 0
        return [0x0D, 0x0A]
    }

    static func hexDigits(_ byte: UInt8) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
    }
}
