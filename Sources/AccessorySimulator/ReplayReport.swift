import ControlProtocol
import JSONCodec

/// What a replay saw: the summary `accessory-sim --replay` prints on stderr at the end and
/// writes as JSON with `--report FILE` (docs/replay.md has the keys).
///
/// Threading: a value. Any thread.
package struct ReplayReport: Sendable, Equatable {
    /// One request the recording did not have (or had fewer times).
    ///
    /// Threading: a value. Any thread.
    package struct Mismatch: Sendable, Equatable {
        /// The request's bytes, escaped.
        package var got: String
        /// The recorded request expected next, escaped, and its line in the recording.
        package var expected: String?
        package var expectedLine: Int?
        package var reason: String
    }

    /// The most mismatches kept in the report (all are counted).
    package static let keptMismatches = 100
    /// The most timing samples kept (beyond them the percentiles describe the first ones).
    package static let keptSamples = 1 << 20

    package var matched = 0
    package var mismatched = 0
    /// Requests answered with a recorded reply again, after their recorded ones ran out.
    package var repeated = 0
    package var mismatches: [Mismatch] = []
    /// Lines of the recorded requests no request matched.
    package var unaskedLines: [Int] = []
    /// How late each reply or unsolicited frame left, in microseconds.
    package var latenessMicroseconds: [Int64] = []
    /// Frames played.
    package var framesPlayed = 0
    /// Modem line changes the program made as recorded (``ReplayLineCheck``); those it made
    /// otherwise are also counted in ``mismatched``.
    package var lineChangesMatched = 0
    package var lineChangesMismatched = 0
    /// Lines of the recorded line changes the program has not made.
    package var unperformedLineChanges: [Int] = []

    /// The `q`-quantile (0…1) of the lateness, nearest rank; nil without samples.
    package func latenessQuantile(_ q: Double) -> Int64? {
        guard !latenessMicroseconds.isEmpty else { return nil }
        let sorted = latenessMicroseconds.sorted()
        let rank = Int((q * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    /// The lines `accessory-sim` prints on stderr.
    package func summaryLines() -> [String] {
        var lines = [
            "replay: \(matched) matched, \(mismatched) mismatched, \(repeated) repeated, "
                + "\(unaskedLines.count) recorded requests never asked for, \(framesPlayed) frames played"
        ]
        if let p50 = latenessQuantile(0.5), let p99 = latenessQuantile(0.99) {
            lines.append("replay: timing error p50 \(Self.milliseconds(p50)) ms, p99 \(Self.milliseconds(p99)) ms")
        }
        if lineChangesMatched + lineChangesMismatched + unperformedLineChanges.count > 0 {
            lines.append(
                "replay: line changes: \(lineChangesMatched) matched, \(lineChangesMismatched) mismatched, "
                    + "\(unperformedLineChanges.count) recorded never made"
            )
        }
        if !unaskedLines.isEmpty {
            let shown = unaskedLines.prefix(20).map(String.init).joined(separator: ", ")
            lines.append("replay: never asked for: line\(unaskedLines.count == 1 ? "" : "s") \(shown)")
        }
        return lines
    }

    /// The report as one JSON object and a newline.
    package func json() -> [UInt8] {
        var object = JSONObject()
        object.append("matched", .int(matched))
        object.append("mismatched", .int(mismatched))
        object.append("repeated", .int(repeated))
        object.append("unasked", .int(unaskedLines.count))
        object.append("unasked_lines", .array(unaskedLines.map { .int($0) }))
        object.append("frames_played", .int(framesPlayed))
        object.append("line_changes_matched", .int(lineChangesMatched))
        object.append("line_changes_mismatched", .int(lineChangesMismatched))
        object.append("line_changes_unperformed_lines", .array(unperformedLineChanges.map { .int($0) }))
        var timing = JSONObject()
        timing.append("samples", .int(latenessMicroseconds.count))
        timing.append("p50_us", latenessQuantile(0.5).map { .integer($0) } ?? .null)
        timing.append("p99_us", latenessQuantile(0.99).map { .integer($0) } ?? .null)
        timing.append("max_us", latenessMicroseconds.max().map { .integer($0) } ?? .null)
        object.append("timing_error", .object(timing))
        object.append(
            "mismatches",
            .array(
                mismatches.map { mismatch in
                    var item = JSONObject()
                    item.append("got", .string(mismatch.got))
                    item.append("expected", mismatch.expected.map { .string($0) } ?? .null)
                    item.append("expected_line", mismatch.expectedLine.map { .int($0) } ?? .null)
                    item.append("reason", .string(mismatch.reason))
                    return .object(item)
                }
            )
        )
        var out: [UInt8] = []
        JSONOutput.appendValue(.object(object), to: &out)
        out.append(UInt8(ascii: "\n"))
        return out
    }

    static func milliseconds(_ microseconds: Int64) -> String {
        let whole = microseconds / 1000
        let fraction = (microseconds % 1000 + 1000) % 1000
        let digits = String(fraction)
        return "\(whole)." + String(repeating: "0", count: 3 - digits.count) + digits
    }
}
