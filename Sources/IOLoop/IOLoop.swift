import Synchronization
import SystemCalls

/// A CFRunLoop-style event loop on epoll: descriptor sources, timers, perform blocks and
/// observers, grouped in run modes, on one thread that never changes.
///
/// Make one with ``spawn(name:)`` (a dedicated, named thread running `.default` until
/// ``shutdown()``) or ``forCurrentThread(name:)`` (the calling thread drives it with
/// ``run(mode:until:)`` / ``run(mode:while:)``, as tests and nested runs do).
///
/// Threading: ``perform(_:)``, ``stop()``, ``shutdown()``, ``inLoop`` and the executor entry
/// points are safe from any thread. Everything else (sources, timers, observers, ``now``, running)
/// is loop thread only and checked with a precondition.
public final class IOLoop: LoopScheduler, @unchecked Sendable {
    // @unchecked: cross-thread state is in Mutex/Atomic; the rest is confined to the loop thread.

    /// An item queued with perform: a closure, or a Swift concurrency job (stored as is, so that
    /// running an actor on the loop allocates no closure).
    enum PerformItem {
        case block(@Sendable () -> Void)
        case job(UnownedJob)
    }

    /// How `run` ended (CFRunLoopRunResult).
    public enum RunResult: Sendable, Equatable {
        /// ``stop()`` was called.
        case stopped
        /// The `until` deadline passed.
        case timedOut
        /// The `while` condition became false.
        case conditionMet
        /// The loop is shutting down.
        case shutDown
    }

    /// The thread name and the name in log lines.
    public let name: String

    /// Most perform blocks run per iteration, so that timers and I/O are not starved by a flood.
    public static let performBatchLimit = 4096

    // MARK: cross-thread state

    /// Open, shutting down, closing, closed: the one record of where the loop is in its life.
    let lifecycle = LoopLifecycle()
    /// What `perform` queued, from this thread and others (its ordering rule is there).
    let performQueue: PerformQueue<PerformItem>
    let wakeFD: CInt
    /// A request that the innermost `run` return `.stopped`, consumed by that run. Not part of the
    /// lifecycle: a loop may be stopped any number of times and run again.
    let stopRequested = Atomic<Bool>(false)
    /// The loop's thread (``ThreadID/rawValue``), zero before it is known.
    private let ownerThread = Atomic<UInt>(0)
    /// True for a loop on its own thread (``spawn(name:)``). Any thread.
    let isSpawned: Bool
    private let thread = Locked<WorkerThread?>(nil)

    /// How many times the wake-up eventfd was written. Tests use it to show coalescing. Any thread.
    public var wakeupWriteCount: Int { performQueue.ringCount }

    // MARK: loop-confined state

    final class ModeState {
        /// The epoll descriptor's number (owned by `epoll`), readable without consuming it.
        let epfd: CInt
        var epoll: OwnedFD?
        var timers = TimerHeap()
        init(epoll: consuming OwnedFD) {
            self.epfd = epoll.rawValue
            self.epoll = consume epoll
        }
    }
    var modeStates: [RunMode: ModeState] = [:]
    var commonModes: Set<RunMode> = [.default]
    /// The sources, indexed by descriptor: the lookup on every event is an index (hashing the
    /// descriptor cost ~110 instructions an event; descriptors are small numbers).
    var sourcesByFD: [FDSource?] = []
    /// The registered sources, for the rare walks over all of them.
    var sources: some Sequence<FDSource> { sourcesByFD.lazy.compactMap { $0 } }
    var nextRegistrationID = SourceRegistration.first
    private var ownedWake: OwnedFD?
    var timerFD: OwnedFD?
    let timerRaw: CInt
    var armedDeadline: UInt64?
    /// How many times the timerfd was armed. Tests use it to show that per-request timers do not
    /// re-arm it. Loop thread only.
    public internal(set) var timerArmCount = 0
    /// How many times the loop has waited for events (one per iteration, nested runs included).
    /// Work bounded "per turn" (the control server's input budget) starts afresh when it
    /// changes. Loop thread only.
    public internal(set) var waitCount: UInt64 = 0
    var observers: [LoopObserver] = []
    var allTimers: [ObjectIdentifier: LoopTimer] = [:]
    /// What the loop's timers hold weakly to report a cancel (``TimerCancellations``), so that
    /// the loop itself is never weakly referenced. Loop thread only.
    let timerCancellations = TimerCancellations()
    /// The mode of the innermost `run`, nil when not running.
    public internal(set) var currentMode: RunMode?

    private init(name: String, spawned: Bool) throws(SyscallError) {
        self.name = name
        self.isSpawned = spawned
        let wake = try EventFD.create()
        let wakeFD = wake.rawValue
        self.wakeFD = wakeFD
        self.performQueue = PerformQueue(lifecycle: lifecycle) { try? EventFD.signal(wakeFD) }
        self.ownedWake = consume wake
        let timer = try TimerFD.create()
        self.timerRaw = timer.rawValue
        self.timerFD = consume timer
        timerCancellations.loop = self
    }

    /// Starts a loop on a new thread named `name` (at most 15 characters are kept) that runs the
    /// `.default` mode until ``shutdown()``. Any thread.
    public static func spawn(name: String) throws(SyscallError) -> IOLoop {
        let loop = try IOLoop(name: name, spawned: true)
        // The default mode's epoll set is made here, so that registration errors surface now.
        try loop.withOwnerForSetup { () throws(SyscallError) in _ = try loop.modeState(.default) }
        let thread = WorkerThread(name: name) { loop.threadMain() }
        loop.thread.withLock { $0 = thread }
        return loop
    }

    /// Makes a loop owned by the calling thread, which runs it with `run`. Any thread (becomes
    /// that thread's loop).
    public static func forCurrentThread(name: String = "test-loop") throws(SyscallError) -> IOLoop {
        let loop = try IOLoop(name: name, spawned: false)
        loop.ownerThread.store(ThreadID.current.rawValue, ordering: .releasing)
        _ = try loop.modeState(.default)
        return loop
    }

    /// Spawn-time setup runs on the creating thread before the loop thread exists; it claims
    /// ownership briefly so the loop-only preconditions hold.
    private func withOwnerForSetup<R>(_ body: () throws(SyscallError) -> R) throws(SyscallError) -> R {
        ownerThread.store(ThreadID.current.rawValue, ordering: .releasing)
        defer { ownerThread.store(0, ordering: .releasing) }
        return try body()
    }

    private func threadMain() {
        ownerThread.store(ThreadID.current.rawValue, ordering: .releasing)
        while lifecycle.state == .open {
            _ = run(mode: .default)
        }
        finishAndClose()
    }

    deinit {
        timerCancellations.loop = nil
        // A loop that was never shut down still owns descriptors; release them. (The thread of a
        // spawned loop holds a reference, so a spawned loop only gets here after shutdown.)
        if lifecycle.state != .closed {
            for s in sources { s.owned.take()?.close() }
            for (_, m) in modeStates { m.epoll.take()?.close() }
            ownedWake.take()?.close()
            timerFD.take()?.close()
        }
    }

    // MARK: - Thread identity

    /// True on the loop's thread. Any thread.
    public var inLoop: Bool {
        ThreadID(rawValue: ownerThread.load(ordering: .acquiring)).isCurrent
    }

    /// The loop's clock. Loop thread only (any thread gets the same value, but timers are loop-only).
    public var now: LoopInstant { LoopInstant(nanoseconds: MonotonicClock.nowNanoseconds()) }

    // MARK: - Perform

    /// Queues `block` to run on the loop thread and wakes the loop. Blocks from one thread run in
    /// the order queued; a block queued from the loop thread runs after the current callback
    /// returns, never reentrantly. The eventfd is written only when the queue goes from empty to non-empty.
    /// Returns false (dropping the block) once the loop has shut down. Any thread.
    @discardableResult
    public func perform(_ block: @escaping @Sendable () -> Void) -> Bool {
        enqueue(.block(block))
    }

    @discardableResult
    func enqueue(_ item: PerformItem) -> Bool {
        performQueue.enqueue(item, onLoop: inLoop)
    }

    /// Whether perform blocks are waiting to run. Loop thread only.
    var hasPendingWork: Bool { performQueue.hasItems }

    /// Runs up to `limit` queued items. Returns how many ran. Loop thread only.
    @discardableResult
    func runPerformBatch(limit: Int) -> Int {
        performQueue.drain(limit: limit) { item in
            switch item {
            case .block(let b): b()
            case .job(let j): j.runSynchronously(on: asUnownedSerialExecutor())
            }
        }
    }

    // MARK: - Stop and shutdown

    /// Makes the innermost `run` return `.stopped` at its next iteration. Any thread.
    public func stop() {
        stopRequested.store(true, ordering: .releasing)
        if !inLoop { performQueue.ring() }
    }

    /// Stops the loop for good: the current run returns, the blocks already performed run, later
    /// `perform` calls return false, the thread is joined and every descriptor the loop owns
    /// (sources it owns, epoll sets, eventfd, timerfd) is closed. Returns the number of perform
    /// blocks that ran during the final drain.
    ///
    /// Any thread except the loop's own for a spawned loop; for a ``forCurrentThread(name:)`` loop,
    /// its thread, while not running.
    @discardableResult
    public func shutdown() -> Int {
        if isSpawned {
            precondition(!inLoop, "shutdown() of a spawned loop cannot be called on its own thread")
            // A second call finds the state moved already; it still waits for the thread.
            lifecycle.move(from: .open, to: .shuttingDown)
            stop()
            thread.withLock { $0.take() }?.join()
            return finalDrainCount.load(ordering: .acquiring)
        } else {
            preconditionInLoop()
            precondition(currentMode == nil, "shutdown() while the loop is running")
            guard lifecycle.move(from: .open, to: .shuttingDown) else { return 0 }
            finishAndClose()
            return finalDrainCount.load(ordering: .acquiring)
        }
    }

    private let finalDrainCount = Atomic<Int>(0)

    /// Runs what was performed before the close, refuses later blocks, closes every descriptor.
    private func finishAndClose() {
        var ran = 0
        // Blocks may perform more (an actor job scheduling its continuation); keep draining,
        // boundedly, until nothing is queued, then close the queue.
        for _ in 0..<64 {
            let n = runPerformBatch(limit: Int.max)
            ran += n
            if n == 0 { break }
        }
        performQueue.close()
        ran += runPerformBatch(limit: Int.max)
        finalDrainCount.store(ran, ordering: .releasing)
        for s in sources { s.cancelAndTakeDescriptor()?.close() }
        sourcesByFD.removeAll()
        for (_, t) in allTimers { t.cancel() }
        allTimers.removeAll()
        observers.removeAll()
        for (_, m) in modeStates {
            m.timers.removeAll()
            m.epoll.take()?.close()
        }
        modeStates.removeAll()
        timerFD.take()?.close()
        // A producer that saw the queue open has finished its write by the time no producer is in.
        performQueue.withProducersExcluded { ownedWake.take()?.close() }
        lifecycle.move(from: .closing, to: .closed)
    }

    /// True once shut down (perform refuses blocks). Any thread.
    public var isShutDown: Bool { lifecycle.state.refusesPerform }

    // MARK: - Modes

    /// Adds `mode` to the common-modes set: everything registered in `.common` joins it. Loop
    /// thread only.
    public func addCommonMode(_ mode: RunMode) throws(SyscallError) {
        preconditionInLoop()
        precondition(mode != .common)
        guard commonModes.insert(mode).inserted else { return }
        let state = try modeState(mode)
        for s in sources where s.modes.contains(.common) && !s.registeredIn.contains(mode) {
            try Epoll.control(state.epfd, .add, fd: s.fd, events: s.epollEvents, data: s.epollData)
            s.registeredIn.insert(mode)
        }
        for (_, t) in allTimers where t.modes.contains(.common) && t.isValid {
            state.timers.insert(t)
        }
    }

    func sourceByFD(_ fd: CInt) -> FDSource? {
        let index = Int(fd)
        return index >= 0 && index < sourcesByFD.count ? sourcesByFD[index] : nil
    }
    func takeRegistrationID() -> UInt32 {
        defer { nextRegistrationID = SourceRegistration.id(after: nextRegistrationID) }
        return nextRegistrationID
    }
    func storeSource(_ s: FDSource) {
        let index = Int(s.fd)
        if index >= sourcesByFD.count { sourcesByFD += Array(repeating: nil, count: index + 1 - sourcesByFD.count) }
        sourcesByFD[index] = s
    }
    func removeSource(_ s: FDSource) {
        if sourceByFD(s.fd) === s { sourcesByFD[Int(s.fd)] = nil }
    }
    func modeStateIfPresent(_ mode: RunMode) -> ModeState? { modeStates[mode] }
    func rememberTimer(_ t: LoopTimer) { allTimers[ObjectIdentifier(t)] = t }
    func forgetTimer(_ t: LoopTimer) { allTimers[ObjectIdentifier(t)] = nil }

    /// The concrete modes that `modes` names (`.common` expands to the common set).
    func concreteModes(_ modes: [RunMode]) -> Set<RunMode> {
        // Nearly every timer and source is in `.common` alone: no set to build.
        if modes.count == 1 && modes[0] == .common { return commonModes }
        var out = Set<RunMode>()
        for m in modes {
            if m == .common { out.formUnion(commonModes) } else { out.insert(m) }
        }
        return out
    }

    /// The state of a concrete mode, creating its epoll set (with the wake-up and timer
    /// descriptors, and the sources already registered for it) on first use.
    func modeState(_ mode: RunMode) throws(SyscallError) -> ModeState {
        precondition(mode != .common, "`.common` is not a concrete mode")
        if let s = modeStates[mode] { return s }
        let ep = try Epoll.create()
        try Epoll.control(ep.rawValue, .add, fd: wakeFD, events: .readable, data: EpollTag.wakeup.epollData)
        try Epoll.control(ep.rawValue, .add, fd: timerRaw, events: .readable, data: EpollTag.timer.epollData)
        let state = ModeState(epoll: ep)
        modeStates[mode] = state
        for s in sources where concreteModes(s.modes).contains(mode) && !s.registeredIn.contains(mode) {
            try Epoll.control(state.epfd, .add, fd: s.fd, events: s.epollEvents, data: s.epollData)
            s.registeredIn.insert(mode)
        }
        for (_, t) in allTimers where t.isValid && concreteModes(t.modes).contains(mode) {
            state.timers.insert(t)
        }
        return state
    }
}
