import SystemCalls

extension IOLoop {
    /// Runs the loop in `mode` until ``stop()``, shutdown, or `deadline`.
    ///
    /// One iteration:
    /// ```
    ///   ┌─▶ fire due timers of `mode`             (at most 1024)
    ///   │   run queued perform blocks              (at most performBatchLimit)
    ///   │   observers: beforeWaiting
    ///   │   arm the timerfd for the earliest timer of `mode`
    ///   │   epoll_wait on `mode`'s set             (0 ms if blocks are still queued)
    ///   │   observers: afterWaiting
    ///   │   dispatch: eventfd → drain; timerfd → fire due timers;
    ///   │             sources → handler, unless cancelled or re-registered meanwhile
    ///   └── until stopped / deadline / shutdown
    /// ```
    /// Callbacks never run under a lock. A handler may call `run` again (a nested run, typically
    /// in another mode); the outer run resumes after it.
    ///
    /// Loop thread only.
    @discardableResult
    public func run(mode: RunMode = .default, until deadline: LoopInstant? = nil) -> RunResult {
        runLoop(mode: mode, deadline: deadline, condition: nil)
    }

    /// Runs the loop in `mode` while `condition()` holds (checked before each iteration): the
    /// "run while condition" of QRunLoop. Loop thread only.
    @discardableResult
    public func run(mode: RunMode = .default, while condition: () -> Bool) -> RunResult {
        withoutActuallyEscaping(condition) { runLoop(mode: mode, deadline: nil, condition: $0) }
    }

    private func runLoop(mode: RunMode, deadline: LoopInstant?, condition: ((() -> Bool))?) -> RunResult {
        preconditionInLoop()
        precondition(mode != .common, "run a concrete mode, not .common")
        precondition(lifecycle.state != .closed, "run() after shutdown")
        let state: ModeState
        do { state = try modeState(mode) } catch { preconditionFailure("cannot create run mode \(mode): \(error)") }
        let outer = currentMode
        currentMode = mode
        defer { currentMode = outer }
        while true {
            if stopRequested.exchange(false, ordering: .acquiringAndReleasing) { return .stopped }
            if isSpawned && lifecycle.state != .open { return .shutDown }
            if let condition, !condition() { return .conditionMet }
            if let deadline, now >= deadline { return .timedOut }
            iterate(mode: mode, state: state, deadline: deadline, condition: condition)
        }
    }

    private func iterate(mode: RunMode, state: ModeState, deadline: LoopInstant?, condition: (() -> Bool)?) {
        fireDueTimers(of: state, in: mode)
        runPerformBatch(limit: IOLoop.performBatchLimit)
        notifyObservers(.beforeWaiting, mode: mode)

        var timeout: CInt = -1
        // Poll instead of sleeping when there is work left, a stop is pending, or the work just
        // done made a `run(while:)` condition false (nothing else would wake us to notice).
        if hasPendingWork || stopRequested.load(ordering: .relaxed) || condition.map({ !$0() }) == true {
            timeout = 0
        } else {
            // The timerfd is re-armed only for an earlier deadline, never disarmed: a request's
            // timeout timer is scheduled and cancelled per request, and re-arming for each would
            // cost two syscalls a request. A deadline left armed after its timer was cancelled
            // fires once, early; that wake-up drains it and arms the then-earliest (see
            // `dispatch`). Invariant at the wait: armed ≤ earliest live deadline of this mode.
            if let earliest = state.timers.earliest(), armedDeadline.map({ earliest < $0 }) ?? true {
                // Arming can fail only for programmer errors; the timer heap stays the truth.
                try? TimerFD.set(timerRaw, deadline: earliest)
                armedDeadline = earliest
                timerArmCount += 1
            }
            if let deadline {
                let remaining = deadline - now
                timeout = CInt(clamping: (remaining.nanosecondsClamped + 999_999) / 1_000_000)
            }
        }

        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 128) { bits in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 128) { data in
                let n: Int
                do {
                    n = try Epoll.wait(state.epfd, events: bits, data: data, timeoutMilliseconds: timeout)
                } catch {
                    preconditionFailure("epoll_wait on loop \(name): \(error)")
                }
                waitCount &+= 1
                notifyObservers(.afterWaiting, mode: mode)
                for i in 0..<n {
                    dispatch(events: Epoll.Events(rawValue: bits[i]), data: data[i], state: state, mode: mode)
                }
            }
        }
    }

    private func dispatch(events: Epoll.Events, data: UInt64, state: ModeState, mode: RunMode) {
        switch EpollTag(epollData: data) {
        case .wakeup:
            _ = try? EventFD.drain(wakeFD)
        case .timer:
            _ = try? TimerFD.drain(timerRaw)
            armedDeadline = nil
            fireDueTimers(of: state, in: mode)
        case .source(let registration):
            // A stale event: the source was cancelled, or the fd number now belongs to a newer
            // registration, earlier in this same batch.
            guard let source = sourceByFD(registration.fd), source.registrationID == registration.id, source.isValid
            else { return }
            var e = FDEvents(epoll: events)
            // Drop bits the source no longer asked for (it may have changed interest in this batch).
            if !source.interest.contains(.readable) { e.remove(.readable) }
            if !source.interest.contains(.writable) { e.remove(.writable) }
            if e.isEmpty { return }
            source.handler(e)
        }
    }

    // MARK: - Observers

    /// Adds an observer called at `activities` of each iteration in `modes`. Loop thread only.
    @discardableResult
    public func addObserver(
        activities: LoopActivity,
        modes: [RunMode] = [.common],
        _ handler: @escaping (LoopActivity) -> Void
    ) -> LoopObserver {
        preconditionInLoop()
        let o = LoopObserver(activities: activities, modes: modes, handler: handler)
        observers.append(o)
        return o
    }

    private func notifyObservers(_ activity: LoopActivity, mode: RunMode) {
        guard !observers.isEmpty else { return }
        if observers.contains(where: \.isCancelled) { observers.removeAll(where: \.isCancelled) }
        // Iterate a copy: an observer may add or cancel observers.
        for o in observers where o.activities.contains(activity) && !o.isCancelled {
            if concreteModes(o.modes).contains(mode) { o.handler(activity) }
        }
    }
}
