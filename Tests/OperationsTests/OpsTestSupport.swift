import AccessoryTestSupport
import Glibc
import IOLoop
import Operations
import SystemCalls

/// An append-only list shared between threads (a test's event log). Any thread. (A pthread lock,
/// not `Mutex`: ThreadSanitizer cannot see `Mutex`'s futex on Linux.)
final class Log<Element: Sendable>: Sendable {
    private let storage = Locked<[Element]>([])
    init() {}
    func append(_ e: Element) { storage.withLock { $0.append(e) } }
    var all: [Element] { storage.withLock { $0 } }
    var count: Int { storage.withLock { $0.count } }
}

/// Spins (yielding the CPU every few tries, so that a loaded 2-core machine still runs the loop
/// thread) until `condition` holds or `seconds` pass. For races that need sub-millisecond timing.
/// Returns whether it held. Any thread.
@discardableResult
func spinUntil(seconds: Double = 0.05, _ condition: () -> Bool) -> Bool {
    var tries = 0
    var deadline: Double?
    while !condition() {
        tries += 1
        if tries % 32 == 0 {
            sched_yield()
            let now = MonotonicNow.seconds()
            if deadline == nil { deadline = now + seconds }
            if now > deadline! { return condition() }
        }
    }
    return true
}

/// A test operation that logs its override points (and, through the test hooks, every step of
/// the state machine) into one event log, and finishes only when told (or at once, if asked).
final class ProbeOperation: LoopOperation, @unchecked Sendable {  // @unchecked: immutable fields; the log is locked.
    let log: Log<String>
    let finishInExecute: Bool

    init(loop: any LoopScheduler, log: Log<String>, name: String = "probe", finishInExecute: Bool = false) {
        self.log = log
        self.finishInExecute = finishInExecute
        super.init(loop: loop, name: name)
        _testsOnlyHooks = _OperationTestHooks(trace: { [log] in log.append($0.rawValue) })
    }

    override func execute() {
        if finishInExecute { finish() }
    }

    override func willCancel() { log.append("willCancel") }

    override func willFinish(error: (any Error)?) {
        log.append("willFinish(\(error.map { "\($0)" } ?? "nil"))")
    }

    deinit { log.append("deinit") }
}

/// An operation that records when it executes and finishes (by name) and finishes when the
/// test calls `complete()`, or at once.
final class StepOperation: LoopOperation, @unchecked Sendable {  // @unchecked: immutable fields; the log is locked.
    let log: Log<String>
    let finishAtOnce: Bool

    init(_ name: String, loop: any LoopScheduler, log: Log<String>, finishAtOnce: Bool = true) {
        self.log = log
        self.finishAtOnce = finishAtOnce
        super.init(loop: loop, name: name)
    }

    override func execute() {
        log.append("\(name).execute")
        if finishAtOnce { finish() }
    }

    override func willCancel() { log.append("\(name).willCancel") }

    override func willFinish(error: (any Error)?) {
        log.append("\(name).finish(\(error.map { "\($0)" } ?? "ok"))")
    }

    /// Finishes it successfully. Loop thread only.
    func complete(error: (any Error)? = nil) { finish(error: error) }
}

/// An error standing for "the device went away".
struct DeviceGone: Error, CustomStringConvertible, Equatable {
    var description: String { "device gone" }
}

/// An error a condition reports.
struct NotLoggedIn: Error, CustomStringConvertible, Equatable {
    var description: String { "not logged in" }
}

extension LoopOperation {
    /// The finish error as an `OperationError`, for terse expectations.
    var operationError: OperationError? { error as? OperationError }
}
