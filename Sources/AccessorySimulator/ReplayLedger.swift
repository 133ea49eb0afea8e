import SystemCalls

/// Where a replay's outcome accumulates while it runs, for the summary at the end: the
/// replaying accessory writes it on its loop, `accessory-sim` reads it after the loop stopped
/// (or from another thread), and mismatches are passed to `log` as they happen.
///
/// Threading: any thread; `@unchecked Sendable` because the report is in a `Locked`.
public final class ReplayLedger: @unchecked Sendable {
    private let state: Locked<ReplayReport>
    private let log: @Sendable (String) -> Void

    public init(log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.state = Locked(ReplayReport())
        self.log = log
    }

    public var report: ReplayReport { state.withLock { $0 } }

    func update(_ body: (inout ReplayReport) -> Void) { state.withLock { body(&$0) } }

    func say(_ message: String) { log(message) }
}
