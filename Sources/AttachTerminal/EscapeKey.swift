/// The key that starts a command during an interactive `attach` (tio's and picocom's "prefix
/// key"): Ctrl and a letter, written `ctrl-t` (or `^T`).
///
/// Threading: a value. Any thread.
package struct EscapeKey: Sendable, Hashable, CustomStringConvertible {
    /// The byte the terminal sends for it (Ctrl-A is 0x01 … Ctrl-Z is 0x1A).
    package let byte: UInt8

    /// Ctrl-T, as in tio.
    package static let standard = EscapeKey(letter: UInt8(ascii: "t"))

    private init(letter: UInt8) { byte = letter - UInt8(ascii: "a") + 1 }

    /// `ctrl-a` … `ctrl-z` or `^A` … `^Z`, any case. Ctrl-J and Ctrl-M are refused: they are
    /// what Enter sends, so every line would start a command.
    package init(parsing text: String) throws(EscapeKeyError) {
        let lower = text.lowercased()
        let letter: Substring
        if lower.hasPrefix("ctrl-") {
            letter = lower.dropFirst(5)
        } else if lower.hasPrefix("ctrl+") {
            letter = lower.dropFirst(5)
        } else if lower.hasPrefix("^") {
            letter = lower.dropFirst(1)
        } else {
            throw EscapeKeyError("--escape takes a key such as ctrl-t or ctrl-a, not '\(text)'")
        }
        guard letter.utf8.count == 1, let byte = letter.utf8.first,
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
        else {
            throw EscapeKeyError("--escape takes ctrl- and one letter a-z, not '\(text)'")
        }
        guard byte != UInt8(ascii: "j") && byte != UInt8(ascii: "m") else {
            throw EscapeKeyError("--escape cannot be \(text): Enter sends that key")
        }
        self.init(letter: byte)
    }

    /// `Ctrl-T`.
    package var description: String { "Ctrl-" + String(UnicodeScalar(byte + UInt8(ascii: "A") - 1)) }
}

/// Why an `--escape` value was refused, in words for the person who typed it.
///
/// Threading: a value. Any thread.
package struct EscapeKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
