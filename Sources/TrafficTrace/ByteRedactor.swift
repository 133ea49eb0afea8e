/// `accessoryctl record --redact REGEX`: every byte of a match becomes `*`, in both directions,
/// before the record is written, so the secret never reaches the file. Lengths are kept (the
/// replay's timing and framing stay as recorded).
///
/// A match is looked for within one record (a request's frame, or one read from the device): a
/// secret the device sends split across two reads is masked only if each part matches alone.
///
/// Threading: not Sendable (holds ``ByteRegex``); one per recorder.
package struct ByteRedactor {
    package static let mask = UInt8(ascii: "*")
    private let expressions: [ByteRegex]

    package init(patterns: [String]) throws(RecordingError) {
        var expressions: [ByteRegex] = []
        for pattern in patterns { expressions.append(try ByteRegex(pattern)) }
        self.expressions = expressions
    }

    package var isEmpty: Bool { expressions.isEmpty }

    /// `bytes` with every match masked.
    package func redact(_ bytes: [UInt8]) -> [UInt8] {
        guard !expressions.isEmpty else { return bytes }
        var out = bytes
        for expression in expressions {
            for range in expression.matches(in: out) {
                for index in range { out[index] = Self.mask }
            }
        }
        return out
    }
}
