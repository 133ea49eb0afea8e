import ControlProtocol
import SystemCalls

/// What the soak counted and every invariant it saw broken. Violations are printed as they happen
/// (the first ``printLimit`` of them) and counted; the totals are printed at the end.
///
/// Threading: the soak's loop thread only (the main thread).
final class Report {
    /// Named counters, printed in the order they were first touched.
    private var counters: [String: Int] = [:]
    private var order: [String] = []
    /// Responses by error code (0: success).
    private(set) var responseCodes: [Int: Int] = [:]
    private(set) var violations = 0
    private var printed = 0
    let printLimit = 50

    func count(_ name: String, _ n: Int = 1) {
        if counters[name] == nil { order.append(name) }
        counters[name, default: 0] += n
    }

    subscript(name: String) -> Int { counters[name] ?? 0 }

    /// The latest the soak's own 10 ms tick fired, in ms.
    private(set) var maxLagMs = 0

    func noteLag(milliseconds: Int) { maxLagMs = max(maxLagMs, milliseconds) }

    func response(code: Int?) { responseCodes[code ?? 0, default: 0] += 1 }

    func violation(_ what: String) {
        violations += 1
        guard printed < printLimit else { return }
        printed += 1
        Output.error("VIOLATION: \(what)")
        if printed == printLimit { Output.error("(further violations are counted, not printed)") }
    }

    /// The totals table (Markdown), the per-code response counts, and the violation count.
    func printTotals() {
        Output.line("| total | count |")
        Output.line("|---|---:|")
        for name in order { Output.line("| \(name) | \(counters[name] ?? 0) |") }
        for code in responseCodes.keys.sorted() {
            let label = code == 0 ? "responses ok" : "responses error \(code) \(ErrorCode(rawValue: code)?.name ?? "")"
            Output.line("| \(label) | \(responseCodes[code] ?? 0) |")
        }
        Output.line("| soak timer lag max (ms) | \(maxLagMs) |")
        Output.line("| **violations** | **\(violations)** |")
    }
}

/// Lines on stdout and stderr, written at once (stdout is a pipe or a file under `make`).
///
/// Threading: any thread (each call is one `write`).
enum Output {
    static func line(_ text: String) {
        _ = try? FileIO.writeAll(1, Array((text + "\n").utf8))
    }

    static func error(_ text: String) {
        _ = try? FileIO.writeAll(2, Array((text + "\n").utf8))
    }
}
