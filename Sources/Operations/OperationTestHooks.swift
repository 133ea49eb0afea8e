/// Instrumentation for tests of the operation state machine (QRunLoopOperation's debug event log
/// and its "cancel before/after scheduling start" switches). Production code leaves
/// ``LoopOperation/_testsOnlyHooks`` nil; then each hook costs one nil check.
///
/// Set it before starting the operation. The closures are called on whatever thread reaches the
/// point they mark (the trace from any thread). Any thread.
public final class _OperationTestHooks: Sendable {
    /// A point in the state machine, named after QRunLoopOperation's log events.
    public enum Event: String, Sendable, CustomStringConvertible {
        /// `start()` (or a queue's add) moved the operation to pending.
        case start
        /// `start()` saw a cancel win between its claim and its scheduled bit, and queued the
        /// cancel-on-loop block itself (after its start-on-loop block).
        case cancelScheduledByStart
        /// `cancel()` set the cancelled bit.
        case cancelWinner
        /// `cancel()` found the operation already cancelled or finished: nothing to do.
        case cancelLoser
        /// `cancel()` queued the cancel-on-loop block.
        case cancelScheduled
        /// Start on loop went ahead (exclusivity, conditions, execute).
        case startOnLoopRun
        /// Start on loop found the cancelled bit: finishing without executing.
        case startOnLoopCancelled
        /// Start on loop found the operation already finished: did nothing.
        case startOnLoopBounce
        /// Cancel on loop is cancelling an unfinished operation.
        case cancelOnLoopCancel
        /// Cancel on loop found the operation already finished: did nothing.
        case cancelOnLoopBounce
        /// `execute()` is about to be called.
        case execute
        /// `finish` began.
        case finish

        public var description: String { rawValue }
    }

    let traceHook: (@Sendable (Event) -> Void)?
    /// In `start()`, after the `pending` claim and before the start-on-loop block is queued.
    let startAfterClaim: (@Sendable () -> Void)?
    /// In `start()`, after the start-on-loop block is queued and before the scheduled bit is set.
    let startAfterSchedule: (@Sendable () -> Void)?
    /// In `cancel()`, after the cancelled bit is set and before cancel-on-loop is queued.
    let cancelAfterClaim: (@Sendable () -> Void)?
    /// In a queue's add from another thread, after the operation is in the inbox and before the
    /// block that takes the inbox in is queued.
    let queueAfterPush: (@Sendable () -> Void)?

    public init(
        trace: (@Sendable (Event) -> Void)? = nil,
        startAfterClaim: (@Sendable () -> Void)? = nil,
        startAfterSchedule: (@Sendable () -> Void)? = nil,
        cancelAfterClaim: (@Sendable () -> Void)? = nil,
        queueAfterPush: (@Sendable () -> Void)? = nil
    ) {
        self.traceHook = trace
        self.startAfterClaim = startAfterClaim
        self.startAfterSchedule = startAfterSchedule
        self.cancelAfterClaim = cancelAfterClaim
        self.queueAfterPush = queueAfterPush
    }

    func trace(_ event: Event) { traceHook?(event) }
}
