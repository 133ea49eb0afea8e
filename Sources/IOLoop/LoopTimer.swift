import HeapModule

/// A one-shot or repeating timer on a loop (CFRunLoopTimer).
///
/// Loop thread only: create, cancel and inspect it on the loop that owns it.
public final class LoopTimer: @unchecked Sendable {  // @unchecked: all mutable state is loop-confined.
    /// The next fire time.
    public internal(set) var deadline: LoopInstant
    /// The period of a repeating timer; `nil` for one-shot.
    public let interval: Duration?
    let handler: () -> Void
    let modes: [RunMode]
    /// Bumped each time the timer is (re)queued, so that heap entries from before are stale.
    var generation: UInt64 = 0
    public private(set) var isCancelled = false
    /// True once a one-shot timer has fired.
    var hasFired = false

    /// False once cancelled, or after a one-shot timer fired.
    public var isValid: Bool { !isCancelled && !hasFired }

    /// Called by `cancel()` so the owning loop can drop heap entries eagerly when they pile up.
    weak var owner: (any TimerOwner)?

    init(deadline: LoopInstant, interval: Duration?, modes: [RunMode], handler: @escaping () -> Void) {
        self.deadline = deadline
        self.interval = interval
        self.modes = modes
        self.handler = handler
    }

    /// The deadline after a repeating timer's fire at `now` (nanoseconds): one `interval` after the
    /// deadline it fired for, or one `interval` after `now` when that is already past, so that a
    /// timer that fell behind skips the missed fires instead of firing them in a burst. The one
    /// place the rule is written: `IOLoop` (real time) and `TimerQueue` (the virtual time of
    /// `EmbeddedLoop`) both use it, so tests in virtual time see what the daemon does. Any thread
    /// (pure).
    static func nextRepeatDeadline(after deadline: LoopInstant, interval: Duration, now: UInt64) -> LoopInstant {
        let next = deadline + interval
        return next.nanoseconds <= now ? LoopInstant(nanoseconds: now) + interval : next
    }

    /// Marks the timer fired at `now`: retires the heap entries it had and, if it repeats, moves
    /// its deadline on. Returns whether it repeats (the caller re-queues it). Loop thread only.
    func noteFired(now: UInt64) -> Bool {
        generation &+= 1
        guard let interval else {
            hasFired = true
            return false
        }
        deadline = Self.nextRepeatDeadline(after: deadline, interval: interval, now: now)
        return true
    }

    /// Stops the timer; it will not fire again. Idempotent. Loop thread only.
    public func cancel() {
        guard !isCancelled else { return }
        isCancelled = true
        owner?.timerWasCancelled(self)
    }
}

protocol TimerOwner: AnyObject {
    func timerWasCancelled(_ timer: LoopTimer)
}

/// A min-heap of timers by deadline, FIFO among equal deadlines. Cancelled and re-queued timers
/// leave stale entries that are skipped lazily and purged when they outnumber live ones.
///
/// Loop thread only (owned by one loop). Shared by `IOLoop` and `EmbeddedLoop`.
public struct TimerHeap {
    struct Entry: Comparable {
        let deadline: UInt64
        let sequence: UInt64
        let generation: UInt64
        let timer: LoopTimer

        static func < (a: Entry, b: Entry) -> Bool {
            (a.deadline, a.sequence) < (b.deadline, b.sequence)
        }
        static func == (a: Entry, b: Entry) -> Bool { a.sequence == b.sequence }

        var isLive: Bool { !timer.isCancelled && timer.generation == generation }
    }

    private var heap = Heap<Entry>()
    private var nextSequence: UInt64 = 0
    private var staleCount = 0

    public init() {}

    /// Number of entries including stale ones (for tests of the purge).
    public var storedCount: Int { heap.count }

    /// Number of live entries: the timers that will still fire. O(count).
    public var liveCount: Int { heap.unordered.reduce(0) { $1.isLive ? $0 + 1 : $0 } }

    mutating func insert(_ timer: LoopTimer) {
        heap.insert(
            Entry(
                deadline: timer.deadline.nanoseconds,
                sequence: nextSequence,
                generation: timer.generation,
                timer: timer
            )
        )
        nextSequence &+= 1
    }

    /// Notes that one entry went stale; rebuilds when more than half are stale.
    mutating func noteStale() {
        staleCount += 1
        if staleCount > 64 && staleCount * 2 > heap.count {
            heap = Heap(heap.unordered.filter(\.isLive))
            staleCount = 0
        }
    }

    /// The earliest live deadline, popping stale entries on the way.
    mutating func earliest() -> UInt64? {
        while let top = heap.min {
            if top.isLive { return top.deadline }
            _ = heap.popMin()
            if staleCount > 0 { staleCount -= 1 }
        }
        return nil
    }

    /// Pops the earliest live timer whose deadline is at or before `now`.
    mutating func popDue(now: UInt64) -> LoopTimer? {
        guard let d = earliest(), d <= now else { return nil }
        return heap.popMin()!.timer
    }

    mutating func removeAll() {
        heap = Heap()
        staleCount = 0
    }
}

/// A self-contained timer queue with an external clock, for loops that keep their own time
/// (the virtual-time `EmbeddedLoop` of the tests). Modes are recorded but not distinguished.
///
/// Loop thread only (the thread that drives the owning loop).
public final class TimerQueue: TimerOwner {
    private var heap = TimerHeap()

    public init() {}

    /// Adds a timer. Loop thread only.
    public func schedule(
        deadline: LoopInstant,
        repeating: Duration?,
        modes: [RunMode],
        handler: @escaping () -> Void
    ) -> LoopTimer {
        if let r = repeating { precondition(r > .zero, "a repeating timer needs a positive interval") }
        let t = LoopTimer(deadline: deadline, interval: repeating, modes: modes, handler: handler)
        t.owner = self
        heap.insert(t)
        return t
    }

    /// Entries held, including stale ones not yet purged (for tests). Loop thread only.
    public var storedCount: Int { heap.storedCount }

    /// The timers that will still fire. Loop thread only.
    public var liveCount: Int { heap.liveCount }

    /// The earliest live deadline (nanoseconds). Loop thread only.
    public func earliest() -> UInt64? { heap.earliest() }

    /// Takes the earliest timer due at `now`, re-queues it if repeating, and returns its handler.
    /// Loop thread only.
    public func popDue(now: UInt64) -> (() -> Void)? {
        guard let t = heap.popDue(now: now) else { return nil }
        if t.noteFired(now: now) { heap.insert(t) }
        return t.handler
    }

    func timerWasCancelled(_ timer: LoopTimer) { heap.noteStale() }
}
