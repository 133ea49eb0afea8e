import SystemCalls

/// What a descriptor source wants to hear about. Any thread (a value).
public struct FDInterest: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let readable = FDInterest(rawValue: 1)
    public static let writable = FDInterest(rawValue: 2)
    public static let none: FDInterest = []
}

/// What happened on a descriptor. `hangup` and `error` are delivered whatever the interest, as
/// the kernel reports them regardless. Any thread (a value).
public struct FDEvents: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let readable = FDEvents(rawValue: 1)
    public static let writable = FDEvents(rawValue: 2)
    public static let hangup = FDEvents(rawValue: 4)
    public static let error = FDEvents(rawValue: 8)

    init(epoll e: Epoll.Events) {
        var r: FDEvents = []
        if e.contains(.readable) { r.insert(.readable) }
        if e.contains(.writable) { r.insert(.writable) }
        if !e.isDisjoint(with: [.hangup, .readHangup]) { r.insert(.hangup) }
        if e.contains(.error) { r.insert(.error) }
        self = r
    }

    public var description: String {
        var parts: [String] = []
        if contains(.readable) { parts.append("readable") }
        if contains(.writable) { parts.append("writable") }
        if contains(.hangup) { parts.append("hangup") }
        if contains(.error) { parts.append("error") }
        return "[" + parts.joined(separator: ",") + "]"
    }
}

/// A descriptor watched by a loop (CFRunLoopSource of the fd kind), level-triggered.
///
/// The registration id packed beside the fd in `epoll_data` (``EpollTag``) makes events that were
/// queued for an earlier registration of the same fd number (closed and reused within one batch)
/// be dropped.
/// A source may own its descriptor; then cancelling it deregisters and closes it, in that order.
///
/// Loop thread only.
public final class FDSource: @unchecked Sendable {  // @unchecked: all mutable state is loop-confined.
    /// The descriptor number. Valid while the source is valid.
    public let fd: CInt
    let registrationID: UInt32
    let modes: [RunMode]
    let handler: (FDEvents) -> Void
    var owned: OwnedFD?
    var registeredIn: Set<RunMode> = []
    unowned(unsafe) let loop: IOLoop

    /// What the source currently listens for.
    public private(set) var interest: FDInterest

    /// False once cancelled (or once the loop shut down).
    public private(set) var isValid = true

    init(
        fd: CInt,
        owned: consuming OwnedFD?,
        id: UInt32,
        interest: FDInterest,
        modes: [RunMode],
        loop: IOLoop,
        handler: @escaping (FDEvents) -> Void
    ) {
        self.fd = fd
        self.owned = owned
        self.registrationID = id
        self.interest = interest
        self.modes = modes
        self.loop = loop
        self.handler = handler
    }

    var epollData: UInt64 { EpollTag.source(SourceRegistration(id: registrationID, fd: fd)).epollData }

    var epollEvents: Epoll.Events {
        var e: Epoll.Events = [.error, .hangup]
        if interest.contains(.readable) { e.insert(.readable) }
        if interest.contains(.writable) { e.insert(.writable) }
        return e
    }

    /// Changes the interest while registered. Loop thread only.
    public func setInterest(_ new: FDInterest) {
        // Unchanged, the common case (owners restate their interest after each read or write):
        // the thread check only in debug builds, where it costs nothing in release (it retains
        // the loop, whose weak references make that a slow atomic).
        guard new != interest else { return loop.assertInLoop() }
        loop.preconditionInLoop()
        guard isValid else { return }
        interest = new
        loop.reregister(self)
    }

    /// Adds to the interest. Loop thread only.
    public func addInterest(_ more: FDInterest) { setInterest(interest.union(more)) }

    /// Removes from the interest. Loop thread only.
    public func removeInterest(_ less: FDInterest) { setInterest(interest.subtracting(less)) }

    /// Deregisters the source and, if it owns its descriptor, closes it. Safe inside its own
    /// handler: no further event is delivered, even one already fetched in the same batch.
    /// Idempotent. Loop thread only.
    public func cancel() {
        loop.preconditionInLoop()
        guard isValid else { return }
        loop.deregister(self)
        isValid = false
        owned.take()?.close()
    }

    /// Deregisters the source and hands its descriptor back to the caller (nil if it did not own
    /// one). Loop thread only.
    public func cancelAndTakeDescriptor() -> OwnedFD? {
        loop.preconditionInLoop()
        guard isValid else { return nil }
        loop.deregister(self)
        isValid = false
        return owned.take()
    }
}

/// When an observer is called (CFRunLoopActivity). Any thread (a value).
public struct LoopActivity: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Each time the loop is about to wait for events (also when the wait is a poll because work
    /// is pending, so a busy loop is still seen as alive).
    public static let beforeWaiting = LoopActivity(rawValue: 1)
    /// Each time the loop returns from waiting.
    public static let afterWaiting = LoopActivity(rawValue: 2)
}

/// A callback run at chosen points of each loop iteration (CFRunLoopObserver). The systemd
/// watchdog and metrics hang here.
///
/// Loop thread only.
public final class LoopObserver: @unchecked Sendable {  // @unchecked: all mutable state is loop-confined.
    let activities: LoopActivity
    let modes: [RunMode]
    let handler: (LoopActivity) -> Void
    public private(set) var isCancelled = false

    init(activities: LoopActivity, modes: [RunMode], handler: @escaping (LoopActivity) -> Void) {
        self.activities = activities
        self.modes = modes
        self.handler = handler
    }

    /// Stops the observer. Idempotent. Loop thread only.
    public func cancel() { isCancelled = true }
}
