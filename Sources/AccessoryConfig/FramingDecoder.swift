/// Decodes an accessory's `framing:` mapping, whose keys depend on its `type`.
///
/// Threading: confined to the decoding call that creates it.
struct FramingDecoder {
    let context: DecodeContext

    /// The `type:` values and the keys each accepts.
    ///
    /// Threading: a value. Any thread.
    private enum Kind: String, CaseIterable {
        case line
        case slip
        case cobs
        case lengthPrefixed = "length_prefixed"
        case idleGap = "idle_gap"

        var keys: [String] {
            switch self {
            case .line: ["delimiter", "terminator"]
            case .slip, .cobs: []
            case .lengthPrefixed: ["width", "endian"]
            case .idleGap: ["gap_ms"]
            }
        }
    }

    private static let commonKeys = ["type", "max_frame_bytes"]
    private static let allKeys = commonKeys + Kind.allCases.flatMap(\.keys)

    /// The settings, or `nil` if absent or wrong (issues recorded).
    func decode(_ accessory: MappingReader) -> FramingSettings? {
        guard let reader = accessory.mapping("framing", accepted: Self.allKeys) else { return nil }
        guard reader.has("type") else {
            reader.errorHere(
                "missing required key \"type\" (one of \(Kind.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
            return nil
        }
        guard let kind = reader.choice("type", Kind.self) else { return nil }
        var settings = FramingSettings()
        var valid = true
        for entry in reader.entries where !Self.commonKeys.contains(entry.key) && !kind.keys.contains(entry.key) {
            context.error(
                reader.childPath(entry.key),
                line: entry.keyLine,
                "does not apply to framing type \(kind.rawValue)"
            )
            valid = false
        }
        settings.maxFrameBytes = reader.integer("max_frame_bytes", Rules.maxFrameBytes) ?? settings.maxFrameBytes
        switch kind {
        case .line:
            let delimiter = reader.string("delimiter", what: "a string such as \"\\r\\n\"").map { Array($0.utf8) }
            let terminator = reader.string("terminator", what: "a string such as \"\\r\\n\"").map { Array($0.utf8) }
            let effectiveDelimiter = delimiter ?? [0x0A]
            settings.format = .line(delimiter: effectiveDelimiter, terminator: terminator ?? effectiveDelimiter)
        case .slip:
            settings.format = .slip
        case .cobs:
            settings.format = .cobs
        case .lengthPrefixed:
            guard let width = reader.integer("width", Rules.width) else {
                if !reader.has("width") { reader.errorHere("framing type length_prefixed needs width (1, 2 or 4)") }
                return nil
            }
            let endian = reader.choice("endian", FrameFormat.Endian.self) ?? .big
            settings.format = .lengthPrefixed(width: width, endian: endian)
        case .idleGap:
            guard let gap = reader.integer("gap_ms", Rules.gapMs) else {
                if !reader.has("gap_ms") { reader.errorHere("framing type idle_gap needs gap_ms (milliseconds)") }
                return nil
            }
            settings.format = .idleGap(gapMs: gap)
        }
        return valid ? settings : nil
    }
}
