/// A configured regular expression that frames are matched against: `response.until`, an
/// `unsolicited` pattern, a resync probe's `expect` (Swift `Regex` syntax).
///
/// A class around the `Regex` rather than a `Regex` field: a `Regex` is a type of the standard
/// library's `_StringProcessing`, whose layout only its own code can compute at run time, so an
/// `Accessory` or `Resync.Probe` holding one ran that code (and kept its pages resident) for every
/// accessory, with or without a pattern. A reference has a fixed layout: the regular expression
/// code runs only where a pattern is configured (docs/packaging.md, "Footprint").
///
/// Both methods are never inlined: inlined into their callers, the compiler fetched the `Regex`
/// type's metadata there ahead of the check for a pattern (every accessory's start, every frame).
///
/// Threading: immutable; made and used on the accessory's device loop (a `Regex` is not `Sendable`).
final class FramePattern {
    private let regex: Regex<AnyRegexOutput>

    /// Nil if `pattern` does not compile (the configuration's validation reports that before).
    @inline(never)
    init?(_ pattern: String) {
        guard let regex = try? Regex(pattern) else { return nil }
        self.regex = regex
    }

    /// Whether `text` contains a match.
    @inline(never)
    func matches(_ text: String) -> Bool {
        (try? regex.firstMatch(in: text)) != nil
    }
}
