import SystemCalls

/// Where a replay's outcome accumulates while it runs, for the summary at the end: the
/// replaying accessory writes it on its loop, `accessory-sim` reads it after the loop stopped
/// (or from another thread), and mismatches are passed to `log` as they happen.
///
/// Threading: any thread; `@unchecked Sendable` because the report is in a `Locked`.
package final class ReplayLedger: @unchecked Sendable {
    /// Threading: a value, inside the lock.
    private struct State {
        var report = ReplayReport()
        /// The recorded requests' lines, and which of them a request matched (the unasked ones
        /// are worked out when the report is read, not on every request).
        var requestLines: [Int] = []
        var asked: [Bool] = []
    }

    private let state: Locked<State>
    private let log: @Sendable (String) -> Void

    package init(log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.state = Locked(State())
        self.log = log
    }

    package var report: ReplayReport {
        state.withLock { state in
            var report = state.report
            report.unaskedLines = state.requestLines.indices.filter { !state.asked[$0] }.map { state.requestLines[$0] }
            return report
        }
    }

    func update(_ body: (inout ReplayReport) -> Void) { state.withLock { body(&$0.report) } }

    /// The recorded requests, by their lines, none asked yet.
    func setRequests(lines: [Int]) {
        state.withLock {
            $0.requestLines = lines
            $0.asked = Array(repeating: false, count: lines.count)
        }
    }

    /// Request `index` (of ``setRequests(lines:)``'s) was matched.
    func asked(_ index: Int) {
        state.withLock { if $0.asked.indices.contains(index) { $0.asked[index] = true } }
    }

    func say(_ message: String) { log(message) }
}
