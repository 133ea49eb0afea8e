import IOLoop
import Synchronization

/// An asynchronous unit of work that runs on one loop thread: the device loop's answer to
/// QRunLoopOperation, with the conditions and observers of Advanced NSOperations.
///
/// Subclass it and override ``execute()``; start it with ``start()`` or, normally, hand it to a
/// ``DeviceQueue``. It ends exactly once, with ``finish(error:)`` on the loop thread.
///
/// ## Threads
///
/// - Any thread: ``start()``, ``cancel(error:)``, ``state``, ``isCancelled``, ``isExecuting``,
///   ``isFinished``, ``error``, ``result``, and the configuration calls (``addCondition(_:)``,
///   ``addObserver(_:)``, ``timeout``, ``exclusivityController``, ``name``) while the operation is
///   still `initialized` (configuring a started operation traps).
/// - Loop thread only: ``finish(error:)``, ``produce(_:)``, and every override point
///   (``execute()``, ``willCancel()``, ``willFinish(error:)``). Observers and conditions are
///   called on the loop thread only.
///
/// ## Theory of operation
///
/// 1. Only `initialized → pending` happens off the loop (in ``start()`` or
///    ``DeviceQueue/addOperation(_:runNext:)``, on the caller's thread, exactly once; a second
///    start traps). Every later move happens on the loop thread, so loop code that sees the state
///    knows it can only change under its own feet by its own doing. The only things other threads
///    change later are the cancel flags (and the scheduled bit, set once by the starting thread).
/// 2. ``start()`` never runs anything itself: it queues "start on loop" with
///    `LoopScheduler.perform`, even when called on the loop thread. So start never finishes an
///    operation synchronously, and never runs user code on the caller's thread.
/// 3. ``cancel(error:)`` may be called any number of times, from any thread, before start, during
///    it, while executing and after finish. The first call that finds the operation neither
///    cancelled nor finished wins (a compare-and-swap on a "cancelling" bit): it stores its error,
///    then sets the cancelled bit, and, if the operation's first loop block has already been
///    queued, queues "cancel on loop". Later calls, and calls after finish, change nothing.
/// 4. "Cancel on loop" is only ever queued *after* "start on loop": `start()` queues its block
///    first and only then sets the scheduled bit that `cancel()` looks at; if a cancel slipped in
///    between, `start()` itself queues the cancel block, again after its own. The loop runs blocks
///    in the order they were queued, so the loop always sees start, then cancel. For an operation
///    added to a ``DeviceQueue`` the first loop block is the queue taking it in; the same rule
///    makes "cancel on loop" always find it in the queue.
/// 5. "Start on loop" checks the cancelled bit: if set, the operation finishes with the cancel
///    error and never executes. The move to `executing` is a compare-and-swap that fails if the
///    cancelled bit is set, so "cancelled before it executed" is a precise statement.
/// 6. "Cancel on loop" does nothing ("bounces") if the operation already finished. Otherwise it
///    calls ``willCancel()`` and finishes the operation with the cancel error (an executing
///    operation is finished right there; ``willCancel()`` is where it aborts its I/O).
///
/// The orderings that follow (tested one by one in `OperationOrderingTests`):
///
/// | # | ordering | outcome |
/// |---|---|---|
/// | 1 | init, deinit | never started: nothing runs |
/// | 2 | init, cancel, deinit | cancelled, never started: nothing runs, no finish |
/// | 3 | init, cancel, start, finish | **cannot happen**: start only queues; finish needs the loop |
/// | 4 | init, cancel, start, startOnLoop, finish | finishes `cancelled`, never executes |
/// | 5 | init, start, cancel, startOnLoop, finish, cancelOnLoop | startOnLoop finishes it; cancelOnLoop bounces |
/// | 6 | init, start, cancel, cancelOnLoop, startOnLoop | **cannot happen**: see point 4 |
/// | 7 | init, start, cancel, startOnLoop, cancelOnLoop, finish | **cannot happen**: see point 5 |
/// | 8 | init, start, startOnLoop, finish | runs to completion |
/// | 9 | init, start, startOnLoop, cancel, cancelOnLoop, finish | cancelled while executing |
/// | 10 | init, start, startOnLoop, cancel, finish, cancelOnLoop | finish won the race; cancelOnLoop bounces |
/// | 11 | init, start, startOnLoop, finish, cancel | late cancel: no effect at all |
///
/// Deinit can only come after finish or before start: a started operation is retained by the
/// blocks it has queued on the loop, and by its queue, until it has finished (or until its loop
/// shuts down and drops them).
///
/// ## What can race
///
/// - `cancel` with `start`, with the queue adding it, with its own execution and with `finish`:
///   all resolved by the rules above.
/// - Two `cancel(error:)` calls with different errors: the winner's error is recorded, and the
///   operation is cancelled once. The loser may return a moment before the winner has set the
///   cancelled bit, so ``isCancelled`` read right after a losing call can still be false.
/// - `cancel` with `finish`: if the cancel wins the bit just as the loop finishes the operation,
///   the operation ends as it finished (``error`` from finish) and ``isCancelled`` is true.
/// - Reading ``state`` from another thread gives a value that may already be stale.
///
/// ## After start
///
/// On the loop: wait for exclusivity (``MutuallyExclusive`` conditions, through the
/// ``ExclusivityController``), evaluate every condition, become `ready`, become `executing`, tell
/// observers ``OperationObserver/operationDidStart(_:)``, arm ``timeout``, call ``execute()``.
/// On finish: ``willFinish(error:)`` (state still the old one), release exclusivity, record the
/// result, flip to `finished`, tell observers ``OperationObserver/operationDidFinish(_:errors:)``,
/// resume `await result` callers, tell the queue. Observers run in the order they were added.
open class LoopOperation: @unchecked Sendable, CustomStringConvertible {  // @unchecked: atomic word; see below.
    // In detail: `word` is atomic; `storedCancelError` is written once, by the winning cancel,
    // before it publishes the cancelled bit (read only after seeing the bit); `finalError` is
    // written once, on the loop, before the release store of `finished` (read only after seeing
    // it); the configuration fields are written only while `initialized`, before the hand-off to
    // the loop; every other field is touched on `loop`'s thread only.

    /// The loop this operation runs on (the device loop). Any thread.
    public let loop: any LoopScheduler

    /// A name for logs and debugging. Set it before starting. Any thread while `initialized`.
    /// Unset, it is ``defaultName``, built only when asked for (operations are made per request,
    /// names are read only by logs and failures).
    public var name: String {
        get { explicitName ?? defaultName }
        set { explicitName = newValue }
    }
    private var explicitName: String?

    /// The name when none was given: the type's. Subclasses describe themselves better. Any
    /// thread while `initialized`.
    open var defaultName: String { "\(Self.self)" }

    /// If set, the operation is cancelled with ``OperationError/timedOut`` when it has been
    /// executing this long. A ``DeviceQueue`` sets its default timeout here when this is nil.
    /// Any thread while `initialized`.
    public var timeout: Duration? {
        get { _timeout }
        set {
            preconditionInitialized("timeout")
            _timeout = newValue
        }
    }

    // MARK: cross-thread state

    // The fields below are touched by one thread at a time (the loop, or the adding thread before
    // the hand-off through `word` or the queue's inbox). They keep the runtime's exclusivity
    // checks in debug builds, where the tests run; release builds drop those checks for every
    // module (Package.swift), so a per-field opt-out would change nothing there.

    let word = Atomic<UInt8>(0)
    /// The error the winning `cancel(error:)` asked for, published by the state word.
    var storedCancelError: (any Error)?
    /// The error the operation finished with, published by the state word.
    var finalError: (any Error)?

    // MARK: configuration (written while initialized)

    private(set) var _conditions: [any OperationCondition] = []
    private(set) var _observers: [any OperationObserver] = []
    var _timeout: Duration?
    var _exclusivityController: ExclusivityController?
    /// The queue whose inbox the operation sits in, unretained: while the operation is in the
    /// inbox, the queue is kept alive by the block queued to take the inbox in. With the link
    /// and flag below, written by the adding thread before the push, read by the loop after
    /// taking the inbox.
    var inboxQueue: Unmanaged<DeviceQueue>?
    var inboxNext: UnsafeMutableRawPointer?
    var inboxRunNext = false

    // MARK: loop-confined state

    /// Where the operation is on the loop side (finer than `state`).
    enum Phase: Equatable {
        /// Not yet on the loop (for a queued operation: still in the queue's inbox).
        case unsubmitted
        /// Waiting in a queue's list, not yet launched.
        case queued
        /// Being launched: "start on loop" is queued or running.
        case launching
        case awaitingExclusivity
        case evaluatingConditions
        case executing
        case finished
    }
    var phase = Phase.unsubmitted
    /// The queue the operation is in, from the moment it reaches the loop until it finishes (a
    /// deliberate cycle, broken at finish).
    var queue: DeviceQueue?
    /// The controller this operation asked for its categories.
    var exclusivity: ExclusivityController?
    /// Categories this operation holds in `exclusivity`.
    var heldCategories: [String] = []
    /// Bumped whenever a condition evaluation round ends, so late completions are ignored.
    var evaluationGeneration: UInt32 = 0
    var conditionResults: [ConditionResult?] = []
    var pendingConditionCount = 0
    /// True once a queue has asked this operation's conditions for their dependencies.
    var dependenciesProduced = false
    var timeoutTimer: LoopTimer?
    /// `await result` callers, registered on the loop, resumed at finish. Each resumes its
    /// continuation: an array of `CheckedContinuation` made every finish load `_Concurrency`'s
    /// metadata for it, waiters or not, in a daemon that never awaits (docs/packaging.md, "Footprint").
    var resultWaiters: [(Result<Void, any Error>) -> Void] = []
    var _didExecute = false
    var _endedByCancellation = false

    /// Test instrumentation; nil in production. Set before starting.
    public var _testsOnlyHooks: _OperationTestHooks?

    /// Makes an operation bound to `loop`. Any thread.
    public init(loop: any LoopScheduler, name: String? = nil) {
        self.loop = loop
        self.explicitName = name
    }

    // MARK: - State (any thread)

    var stateWord: StateWord { StateWord(raw: word.load(ordering: .acquiring)) }

    /// The current state. From another thread the value may be stale by the time it is used.
    /// Any thread.
    public var state: OperationState { stateWord.state }

    /// True once a ``cancel(error:)`` call has won (it came before the operation finished). Any
    /// thread.
    public var isCancelled: Bool { stateWord.isCancelled }

    /// True between ``execute()`` and finish. Any thread.
    public var isExecuting: Bool { state == .executing }

    /// True once finished. ``error`` and ``result`` are then final. Any thread.
    public var isFinished: Bool { state == .finished }

    /// The error the operation finished with; nil if it succeeded or has not finished. Any thread.
    public var error: (any Error)? {
        isFinished ? finalError : nil
    }

    /// The outcome once finished, else nil. Any thread.
    var finishedResult: Result<Void, any Error>? {
        guard isFinished else { return nil }
        return finalError.map { .failure($0) } ?? .success(())
    }

    /// True if ``execute()`` was called. Loop thread only (final once finished).
    public var didExecute: Bool { _didExecute }

    /// True if the operation ended because a cancellation (including a timeout) reached it.
    /// Loop thread only.
    public var endedByCancellation: Bool { _endedByCancellation }

    /// Whether a ``DeviceQueue`` must run its resync hook after this operation, before the next
    /// one starts: by default, when the operation executed and was then ended by a cancellation or
    /// a timeout (a reply may still be on its way). Override to ask for a resync in other cases,
    /// e.g. after a garbled reply. Loop thread only; read once, right after finish.
    open var needsResync: Bool {
        guard _didExecute else { return false }
        if _endedByCancellation { return true }
        switch error as? OperationError {
        case .cancelled?, .timedOut?: return true
        default: return false
        }
    }

    public var description: String { "\(name)(\(state)\(isCancelled ? ", cancelled" : ""))" }

    // MARK: - Configuration (any thread, while initialized)

    /// The controller for ``MutuallyExclusive`` conditions of an operation started on its own
    /// (with ``start()``). In a ``DeviceQueue`` the queue's controller is used instead. Any thread
    /// while `initialized`.
    public var exclusivityController: ExclusivityController? {
        get { _exclusivityController }
        set {
            preconditionInitialized("exclusivityController")
            _exclusivityController = newValue
        }
    }

    /// The conditions added so far. Any thread while `initialized`; loop thread after.
    public var conditions: [any OperationCondition] { _conditions }

    /// The observers added so far. Any thread while `initialized`; loop thread after.
    public var observers: [any OperationObserver] { _observers }

    /// Adds a condition, evaluated on the loop before the operation executes. Any thread, only
    /// while `initialized` (traps after).
    public func addCondition(_ condition: any OperationCondition) {
        preconditionInitialized("addCondition")
        _conditions.append(condition)
    }

    /// Adds an observer; observers are called in the order added. Any thread, only while
    /// `initialized` (traps after).
    public func addObserver(_ observer: any OperationObserver) {
        preconditionInitialized("addObserver")
        _observers.append(observer)
    }

    func preconditionInitialized(_ what: StaticString, file: StaticString = #fileID, line: UInt = #line) {
        precondition(state == .initialized, "\(what) after the operation was started or queued", file: file, line: line)
    }

    // MARK: - Override points (loop thread)

    /// Does the work. Called once, on the loop thread, in state `executing`, after observers were
    /// told the operation started. The work may be asynchronous; call ``finish(error:)`` when it
    /// ends. The default finishes at once with no error.
    open func execute() {
        finish()
    }

    /// Called on the loop thread when a cancellation reaches an operation that has not finished,
    /// just before it is finished with the cancel error. ``state`` tells whether it was executing:
    /// an executing operation aborts its I/O here. It may call ``finish(error:)`` itself (to end
    /// with another error); otherwise it is finished with the cancel error right after. Called at
    /// most once. The default does nothing.
    open func willCancel() {}

    /// Called on the loop thread exactly once, just before the state flips to `finished`, whether
    /// the operation succeeded, failed, was cancelled or never executed. Tear down sources and
    /// timers here. Must not call ``finish(error:)``. The default does nothing.
    open func willFinish(error: (any Error)?) {}
}
