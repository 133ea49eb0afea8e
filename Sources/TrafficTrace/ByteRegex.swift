/// A regular expression over bytes: each byte is taken as the Unicode scalar of the same number
/// (Latin-1), and the expression matches scalar by scalar (not by grapheme, so `\r\n` is two
/// characters, as on the wire). `AT\+CCLK=".*"\r` matches whatever time is between the quotes;
/// `\x00`-`\xff` name any byte.
///
/// Threading: not Sendable (Swift's `Regex` is not); keep one per thread. Make it from its
/// pattern where it is used.
package struct ByteRegex {
    package let pattern: String
    private let regex: Regex<AnyRegexOutput>

    /// Throws a message that says what is wrong with the pattern.
    package init(_ pattern: String) throws(RecordingError) {
        self.pattern = pattern
        do {
            regex = try Regex(pattern).matchingSemantics(.unicodeScalar)
        } catch {
            throw RecordingError(line: 0, "not a regular expression: \(pattern): \(error)")
        }
    }

    /// Whether the expression matches all of `bytes`.
    package func matchesWhole(_ bytes: some Collection<UInt8>) -> Bool {
        let text = Self.latin1(bytes)
        return (try? regex.wholeMatch(in: text)) != nil
    }

    /// The byte ranges of the non-overlapping matches in `bytes`, in order.
    package func matches(in bytes: some Collection<UInt8>) -> [Range<Int>] {
        let text = Self.latin1(bytes)
        let scalars = text.unicodeScalars
        return text.matches(of: regex).compactMap { match in
            let lower = scalars.distance(from: scalars.startIndex, to: match.range.lowerBound)
            let upper = scalars.distance(from: scalars.startIndex, to: match.range.upperBound)
            return lower < upper ? lower..<upper : nil
        }
    }

    static func latin1(_ bytes: some Collection<UInt8>) -> String {
        var text = String.UnicodeScalarView()
        for byte in bytes { text.append(Unicode.Scalar(byte)) }
        return String(text)
    }
}
