/// NMEA 0183 sentence framing: `$<body>*<checksum>\r\n`, the checksum being the XOR of the body's
/// bytes in two upper-case hex digits.
///
/// Any thread (pure functions).
package enum NMEASentence {
    /// The XOR of `body`'s bytes (the text between `$` and `*`).
    package static func checksum(_ body: some Sequence<UInt8>) -> UInt8 {
        body.reduce(0, ^)
    }

    /// `$<body>*HH\r\n`.
    package static func frame(_ body: String) -> String {
        "$\(body)*\(hex(checksum(body.utf8)))\r\n"
    }

    /// Whether `sentence` (with or without its line end) is `$body*HH` with a correct checksum.
    package static func isValid(_ sentence: String) -> Bool {
        var s = Substring(sentence)
        while s.last == "\r" || s.last == "\n" { s.removeLast() }
        guard s.first == "$", let star = s.lastIndex(of: "*") else { return false }
        let body = s[s.index(after: s.startIndex)..<star]
        let given = s[s.index(after: star)...]
        return given == hex(checksum(body.utf8))
    }

    static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(b >> 4)], digits[Int(b & 0xF)]])
    }
}
