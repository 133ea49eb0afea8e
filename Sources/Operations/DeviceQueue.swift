import DequeModule
import IOLoop
import Synchronization

/// The single-file line of operations for one accessory: strictly first in, first out, one
/// operation at a time, on the device loop.
///
/// ## Guarantees
///
/// - One at a time: an operation is launched only when its predecessor has finished (and, if the
///   predecessor ended by cancellation or timeout after it had executed, when the resync hook has
///   called `done`). No operation ever starts while another of this queue is executing.
/// - Single file: operations launch in the order they were added (from one thread; adds from
///   different threads are ordered as they reach the loop). The only ways to get ahead are
///   explicit: `runNext: true`, and the dependencies an operation's conditions produce, which are
///   inserted directly ahead of it.
/// - Holding: the launched operation holds the queue while it waits for exclusivity and for its
///   conditions, not only while it executes. Nothing behind it starts meanwhile.
/// - Promptness: a queued operation that is cancelled leaves the queue and finishes on the next
///   loop turn, without waiting for its turn.
/// - An operation never starts on the stack of the one before it: when an operation finishes
///   inside `execute()`, the queue launches the next once that `execute()` has returned; when it
///   finishes later (from a timer or an fd callback), the next is launched on a later loop turn.
///   At most ``launchBudget`` operations are launched per loop turn, so a long line of operations
///   that finish at once cannot starve the loop's timers and descriptors.
/// - Launched at once when idle: an operation added on the loop thread to an idle queue (nothing
///   current, waiting, finishing, resyncing or suspended) is launched before `addOperation`
///   returns, as nothing of the queue is on the stack; otherwise on a later loop turn.
///
/// ## Adding from other threads
///
/// Adds from other threads go through a lock-free inbox: the adder pushes the operation and, only
/// when the inbox was empty, queues one `perform` block that takes the whole inbox in. A burst of
/// adds therefore costs one loop wake-up, and no allocation per operation. Cancelling an
/// operation still in the inbox takes the inbox in first, so a cancellation is never lost or
/// reordered ahead of its add.
///
/// ## Threads
///
/// - Any thread: ``addOperation(_:runNext:)``, ``addOperations(_:)``, ``suspend()``,
///   ``resume()``, ``cancelAll()``, ``drain(error:)``, ``operationCount``. Off the loop they are
///   forwarded with `perform`; on the loop thread they act at once.
/// - Loop thread only: ``delegate``, ``resync``, ``currentOperation``, ``operations``,
///   ``isSuspended``, ``isResyncing``. The delegate and the resync hook are called there.
///
/// ## What can race
///
/// - `addOperation` from another thread with ``drain(error:)`` or ``cancelAll()`` from a third:
///   whichever reaches the loop first acts first; an operation that arrives after a drain is
///   queued normally.
/// - ``operationCount`` read from another thread is a snapshot.
public final class DeviceQueue: @unchecked Sendable {  // @unchecked: loop-confined; other threads use `crossThread`.
    // Every mutable field is confined to `loop`'s thread; the any-thread entry points only forward
    // to it (with perform, or through the atomic inbox in `crossThread`).

    /// Runs after an operation that executed and then ended by cancellation or timeout, before the
    /// next operation starts: discard late bytes, wait for the line to go idle, then call `done`
    /// (once, on the loop thread). Loop thread only.
    public typealias ResyncHook = (_ previous: LoopOperation, _ done: @escaping () -> Void) -> Void

    /// The device loop. Any thread.
    public let loop: any LoopScheduler
    /// For logs. Any thread.
    public let name: String
    /// Shared with every queue whose operations must exclude this one's. Any thread.
    public let exclusivity: ExclusivityController
    /// Given to every added operation whose own ``LoopOperation/timeout`` is nil. Any thread.
    public let defaultTimeout: Duration?

    /// Told about adds and finishes. Held strongly, so a call finds it without a weak load (the
    /// side-table lookup of a weak reference, twice a request): a delegate must not hold its
    /// queue. Loop thread only.
    public var delegate: (any DeviceQueueDelegate)?
    /// See ``ResyncHook``. Loop thread only.
    public var resync: ResyncHook?

    var waiting = Deque<LoopOperation>()
    /// The launched operation: waiting for exclusivity or conditions, or executing. Loop thread only.
    public internal(set) var currentOperation: LoopOperation?
    /// True between ``suspend()`` and ``resume()``. Loop thread only.
    public internal(set) var isSuspended = false
    /// True while the resync hook has not called `done`. Loop thread only.
    public internal(set) var isResyncing = false
    var resyncToken: UInt64 = 0
    var pumping = false
    /// Operations of this queue inside ``LoopOperation/finish(error:)`` (their callbacks and the
    /// queue's own bookkeeping of the finish): while any is, nothing is launched on the stack.
    var finishing = 0
    var pumpAgain = false
    var pumpScheduled = false
    /// What other threads write, in an object of its own so that their writes do not keep
    /// stealing the cache line of the loop-side fields above.
    let crossThread = CrossThreadState()

    final class CrossThreadState: @unchecked Sendable {  // @unchecked: only atomics (raw pointers are not Sendable).
        /// Operations added and not yet finished.
        let depth = Atomic<Int>(0)
        /// Operations added from other threads, newest first (a Treiber stack of retained
        /// operations linked through `inboxNext`). Any thread pushes; the loop takes all.
        let inbox = Atomic<UnsafeMutableRawPointer?>(nil)
    }

    /// The most operations launched in one loop turn. Loop thread only (a constant).
    public static let launchBudget = 64

    /// Makes a queue on `loop`. Pass the same `exclusivity` controller to every queue on the loop
    /// whose operations may exclude each other. Any thread.
    public init(
        loop: any LoopScheduler,
        name: String = "device-queue",
        exclusivity: ExclusivityController = ExclusivityController(),
        defaultTimeout: Duration? = nil,
        resync: ResyncHook? = nil
    ) {
        self.loop = loop
        self.name = name
        self.exclusivity = exclusivity
        self.defaultTimeout = defaultTimeout
        self.resync = resync
    }

    /// Operations added and not yet finished, including the current one and those still on their
    /// way to the loop. Any thread (a snapshot).
    public var operationCount: Int { crossThread.depth.load(ordering: .relaxed) }

    /// The current operation, then the waiting ones in launch order (not those added from other
    /// threads that have not reached the loop yet). Loop thread only.
    public var operations: [LoopOperation] {
        loop.preconditionInLoop()
        return (currentOperation.map { [$0] } ?? []) + waiting.filter { $0.state != .finished }
    }

    // MARK: - Adding (any thread)

    /// Adds `operation` at the end of the line, or, with `runNext`, at the front (behind the
    /// current operation only; several run-next operations go in the reverse order of their
    /// adds, as with ModemManager's run_next). The operation must be `initialized` and on this
    /// queue's loop; it becomes `pending` before this returns. A cancelled operation is finished
    /// (cancelled) as soon as it reaches the loop. Any thread.
    public func addOperation(_ operation: LoopOperation, runNext: Bool = false) {
        prepare(operation)
        let cancelledBefore = operation.claimPending("addOperation")
        operation._testsOnlyHooks?.startAfterClaim?()
        var launchNow = false
        if loop.inLoop {
            // Take in what other threads added first, so that this one comes after them.
            drainInbox()
            enqueueOnLoop(operation, runNext: runNext)
            launchNow = mayLaunchOnCallersStack
            if !launchNow { schedulePump() }
        } else {
            push(operation, runNext: runNext)
        }
        operation._testsOnlyHooks?.startAfterSchedule?()
        operation.markScheduled(cancelledBefore: cancelledBefore)
        if launchNow { pump() }
    }

    /// Adds several operations at the end of the line, in order. Any thread.
    public func addOperations(_ operations: [LoopOperation]) {
        if operations.isEmpty { return }
        var cancelledBefore: [Bool] = []
        cancelledBefore.reserveCapacity(operations.count)
        for op in operations {
            prepare(op)
            cancelledBefore.append(op.claimPending("addOperations"))
        }
        if loop.inLoop {
            drainInbox()
            for op in operations { enqueueOnLoop(op, runNext: false) }
            schedulePump()
        } else {
            for op in operations { push(op, runNext: false) }
        }
        for (op, cancelled) in zip(operations, cancelledBefore) {
            op.markScheduled(cancelledBefore: cancelled)
        }
    }

    /// Adds a ``BlockLoopOperation`` running `block` and returns it. Any thread.
    @discardableResult
    public func addOperation(
        name: String? = nil,
        runNext: Bool = false,
        _ block: @escaping (_ done: BlockLoopOperation.Done) -> Void
    ) -> BlockLoopOperation {
        let op = BlockLoopOperation(loop: loop, name: name, block)
        addOperation(op, runNext: runNext)
        return op
    }

    /// Checks and configures an operation before its claim. Caller's thread.
    func prepare(_ operation: LoopOperation) {
        precondition(
            ObjectIdentifier(operation.loop) == ObjectIdentifier(loop),
            "\(operation.name) is bound to another loop than queue \(name)"
        )
        operation.preconditionInitialized("addOperation")
        if operation._timeout == nil { operation._timeout = defaultTimeout }
        crossThread.depth.add(1, ordering: .relaxed)
    }

    /// Pushes onto the inbox; the adder that finds it empty queues the block that takes it in.
    /// Any thread.
    private func push(_ operation: LoopOperation, runNext: Bool) {
        let shared = crossThread
        operation.inboxQueue = Unmanaged.passUnretained(self)
        operation.inboxRunNext = runNext
        let node = Unmanaged.passRetained(operation).toOpaque()
        var top = shared.inbox.load(ordering: .relaxed)
        while true {
            operation.inboxNext = top
            let (done, seen) = shared.inbox.weakCompareExchange(
                expected: top,
                desired: node,
                successOrdering: .releasing,
                failureOrdering: .relaxed
            )
            if done { break }
            top = seen
        }
        operation._testsOnlyHooks?.queueAfterPush?()
        if top == nil {
            let queued = loop.perform { [self] in
                drainInbox()
                pump()
            }
            if !queued { abandonInbox() }
        }
    }

    /// The loop has shut down: nothing will ever take the inbox in. Let go of the operations in
    /// it (they stay `pending` forever; see ``LoopOperation/result``). Any thread.
    private func abandonInbox() {
        var top = crossThread.inbox.exchange(nil, ordering: .acquiring)
        while let node = top {
            let op = Unmanaged<LoopOperation>.fromOpaque(node).takeRetainedValue()
            top = op.inboxNext
            op.inboxNext = nil
            op.inboxQueue = nil
            crossThread.depth.subtract(1, ordering: .relaxed)
        }
    }

    // MARK: - Control (any thread)

    /// Stops launching operations; the current one carries on. Any thread.
    public func suspend() {
        loop.execute { [self] in isSuspended = true }
    }

    /// Launches operations again (from a later loop turn). Any thread.
    public func resume() {
        loop.execute { [self] in
            isSuspended = false
            schedulePump()
        }
    }

    /// Cancels every operation in the queue, queued and current (see
    /// ``LoopOperation/cancel(error:)``). Operations added later are not affected. Any thread.
    public func cancelAll(error: any Error = OperationError.cancelled) {
        loop.execute { [self] in
            drainInbox()
            for op in waiting { op.cancel(error: error) }
            currentOperation?.cancel(error: error)
        }
    }

    /// Finishes every queued operation with `error` at once (they never execute), and cancels the
    /// current one with `error` (it finishes on a later loop turn). Used when the device goes away.
    /// Operations added later are queued normally. Any thread.
    public func drain(error: any Error) {
        loop.execute { [self] in
            drainInbox()
            let drained = waiting
            waiting.removeAll()
            for op in drained where op.state != .finished {
                op.finishOnLoop(errors: [error])
            }
            currentOperation?.cancel(error: error)
        }
    }
}
