/// What a loop still holds: live descriptor sources, live timers, observers not cancelled, and
/// blocks queued and not yet run. A test that ends with any of them left has leaked them
/// (AccessoryTestSupport's `withCheckedLoop` checks it at the end of each loop test).
///
/// A value. Any thread.
public struct LoopLeftovers: Equatable, Sendable, CustomStringConvertible {
    public var sources: Int
    public var timers: Int
    public var observers: Int
    public var blocks: Int

    public init(sources: Int = 0, timers: Int = 0, observers: Int = 0, blocks: Int = 0) {
        self.sources = sources
        self.timers = timers
        self.observers = observers
        self.blocks = blocks
    }

    /// True when nothing is left.
    public var isEmpty: Bool { self == LoopLeftovers() }

    public var description: String {
        "\(sources) source(s), \(timers) timer(s), \(observers) observer(s), \(blocks) queued block(s)"
    }
}

extension IOLoop {
    /// What this loop still holds (see ``LoopLeftovers``). Costs a walk over the sources and
    /// timers: for tests and diagnostics. Loop thread only.
    public var leftovers: LoopLeftovers {
        preconditionInLoop()
        return LoopLeftovers(
            sources: sources.reduce(0) { $1.isValid ? $0 + 1 : $0 },
            timers: allTimers.values.reduce(0) { $1.isValid ? $0 + 1 : $0 },
            observers: observers.reduce(0) { $1.isCancelled ? $0 : $0 + 1 },
            blocks: performQueue.count
        )
    }
}
