/// Passes a timer's cancel on to its loop: what every `LoopTimer` of an `IOLoop` holds as its
/// weak owner.
///
/// Why not the loop itself: an object that is weakly referenced gets a side table, and then every
/// retain and release of it takes the runtime's slow path (about four times the instructions).
/// The loop is retained and released on every request; this object never is.
///
/// Loop thread only. `loop` is cleared by the loop's deinit, before anything it owns goes.
final class TimerCancellations: TimerOwner {
    unowned(unsafe) var loop: IOLoop?

    func timerWasCancelled(_ timer: LoopTimer) {
        loop?.timerWasCancelled(timer)
    }
}

extension IOLoop {
    /// Schedules `handler` at `deadline`, then every `repeating` if given. A repeating timer that
    /// falls behind skips the missed fires (it does not fire in a burst). Loop thread only.
    public func scheduleTimer(
        at deadline: LoopInstant,
        repeating: Duration?,
        modes: [RunMode],
        _ handler: @escaping () -> Void
    ) -> LoopTimer {
        preconditionInLoop()
        if let r = repeating { precondition(r > .zero, "a repeating timer needs a positive interval") }
        let timer = LoopTimer(deadline: deadline, interval: repeating, modes: modes, handler: handler)
        timer.owner = timerCancellations
        rememberTimer(timer)
        for mode in concreteModes(modes) {
            // Creating a mode's epoll set can fail only when out of descriptors; the timer then
            // simply does not exist in that mode, which is reported by the trap below in debug.
            guard let state = try? modeState(mode) else {
                assertionFailure("cannot create run mode \(mode)")
                continue
            }
            state.timers.insert(timer)
        }
        return timer
    }

    func timerWasCancelled(_ timer: LoopTimer) {
        forgetTimer(timer)
        for mode in concreteModes(timer.modes) { modeStateIfPresent(mode)?.timers.noteStale() }
    }

    /// Fires the due timers of `mode`, at most `limit` of them. Returns how many fired.
    @discardableResult
    func fireDueTimers(of state: ModeState, in mode: RunMode, limit: Int = 1024) -> Int {
        let nowNS = now.nanoseconds
        var fired = 0
        while fired < limit, let timer = state.timers.popDue(now: nowNS) {
            if timer.noteFired(now: nowNS) {
                for m in concreteModes(timer.modes) { modeStateIfPresent(m)?.timers.insert(timer) }
            } else {
                forgetTimer(timer)
            }
            // Other modes' heaps still hold the old generation; they are skipped there.
            for m in concreteModes(timer.modes) where m != mode { modeStateIfPresent(m)?.timers.noteStale() }
            timer.handler()
            fired += 1
        }
        return fired
    }
}
