import SystemCalls
import TrafficTrace

/// The rules file of `accessory-sim --rules FILE` (docs/replay.md): one regular expression a
/// line (``ByteRegex``: bytes as Latin-1, matched whole against a request including its line
/// end); blank lines and lines starting with `#` are ignored. A line is taken as it is, without
/// its newline: write `\r` for a carriage return.
///
/// ```
/// # the clock the program sets differs every run
/// AT\+CCLK="[^"]*"\r
/// ```
///
/// Threading: stateless. Any thread.
package enum ReplayRules {
    /// The most rules a file may hold.
    package static let maxRules = 1000

    package static func load(path: String) throws(SimulatorError) -> [ReplayRule] {
        let bytes: [UInt8]
        do throws(SyscallError) {
            bytes = try FileIO.readFile(path, limit: 1 << 20)
        } catch {
            throw .script(file: path, line: 0, message: "cannot read the rules: \(error)")
        }
        return try parse(bytes, file: path)
    }

    package static func parse(_ bytes: [UInt8], file: String) throws(SimulatorError) -> [ReplayRule] {
        var rules: [ReplayRule] = []
        for (index, raw) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            guard let text = String(validating: raw, as: UTF8.self) else {
                throw .script(file: file, line: index + 1, message: "not UTF-8 text")
            }
            if text.isEmpty || text.hasPrefix("#") { continue }
            do throws(RecordingError) {
                _ = try ByteRegex(text)
            } catch {
                throw .script(file: file, line: index + 1, message: error.message)
            }
            rules.append(ReplayRule(pattern: text, line: index + 1))
            if rules.count > maxRules {
                throw .script(file: file, line: index + 1, message: "more than \(maxRules) rules")
            }
        }
        return rules
    }
}
