/// A JSON number, kept without losing precision.
///
/// The parser produces `.integer` for a literal without fraction or exponent that fits
/// `Int64`, `.double` for a literal with a fraction or exponent whose magnitude fits a
/// `Double`, and `.outOfRange` (the literal text, verbatim) for anything else, such as
/// `18446744073709551616` or `1e400`, so that no consumer mistakes it for a nearby value.
///
/// Threading: a value. Any thread.
public enum JSONNumber: Sendable, Hashable {
    case integer(Int64)
    /// Written as `null` if not finite (JSON has no NaN or infinity).
    case double(Double)
    /// The literal text. Written verbatim if it is a valid JSON number, else as `null`.
    case outOfRange(String)

    /// The literal as it would be written.
    var text: String {
        var bytes: [UInt8] = []
        JSONOutput.appendNumber(self, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
