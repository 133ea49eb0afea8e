import IOLoop

extension LoopOperation {
    // MARK: - Start (any thread)

    /// Starts a stand-alone operation (one not given to a queue): moves it to `pending` and queues
    /// the rest on the loop with `perform`, even when called on the loop thread. Returns at once.
    /// Traps if the operation was already started or queued. If the loop has shut down, nothing
    /// more happens. Any thread.
    ///
    /// A stand-alone operation evaluates its conditions but has no queue to run the dependencies
    /// they could produce; ``OperationCondition/dependency(for:)`` is not called.
    public final func start() {
        submit("start()", synchronously: false) { [self] in startOnLoop() }
    }

    /// `initialized → pending`, then `first` on the loop (now, if `synchronously`), then the
    /// scheduled bit (see the type's theory of operation, point 4).
    func submit(_ what: StaticString, synchronously: Bool, _ first: @escaping @Sendable () -> Void) {
        let cancelledBefore = claimPending(what)
        _testsOnlyHooks?.startAfterClaim?()
        if synchronously { first() } else { loop.perform(first) }
        _testsOnlyHooks?.startAfterSchedule?()
        markScheduled(cancelledBefore: cancelledBefore)
    }

    /// `initialized → pending`, trapping in any other state. Returns whether the operation was
    /// already cancelled at that moment (then the first loop block will see it). Any thread.
    func claimPending(_ what: StaticString) -> Bool {
        var old = word.load(ordering: .relaxed)
        while true {
            let w = StateWord(raw: old)
            precondition(w.state == .initialized, "\(what) of an operation that was already started or queued")
            let (done, seen) = word.weakCompareExchange(
                expected: old,
                desired: w.with(state: .pending).raw,
                successOrdering: .acquiringAndReleasing,
                failureOrdering: .relaxed
            )
            if done { break }
            old = seen
        }
        _testsOnlyHooks?.trace(.start)
        return StateWord(raw: old).isCancelled
    }

    /// Sets the scheduled bit once the first loop block is queued. A cancel that won after the
    /// claim but before this bit did not queue cancel-on-loop (it saw no bit), so it is queued
    /// here, after the first block. Any thread.
    func markScheduled(cancelledBefore: Bool) {
        let prior = StateWord(raw: word.bitwiseOr(StateWord.scheduledBit, ordering: .acquiringAndReleasing).oldValue)
        if prior.isCancelled && !cancelledBefore {
            _testsOnlyHooks?.trace(.cancelScheduledByStart)
            loop.perform { [self] in cancelOnLoop() }
        }
    }

    // MARK: - Cancel (any thread)

    /// Cancels the operation; `error` is what it will finish with (``OperationError/cancelled``
    /// unless given). Any thread, any number of times, before start, during it, while executing
    /// or after finish:
    ///
    /// - not started: the operation is marked cancelled; if it is started or queued later, it
    ///   finishes with `error` without executing. If it is never started, it never finishes.
    /// - queued or waiting for its conditions: it is finished with `error` on the loop, soon, and
    ///   leaves its queue without executing.
    /// - executing: on the loop, ``willCancel()`` runs, then the operation is finished with
    ///   `error` (unless ``willCancel()`` finished it).
    /// - finished, or already cancelled: nothing happens.
    ///
    /// The work on the loop is always queued with `perform`, even from the loop thread, so
    /// `cancel` never runs operation code on the caller's stack.
    public final func cancel(error: any Error = OperationError.cancelled) {
        let hooks = _testsOnlyHooks
        var old = word.load(ordering: .relaxed)
        while true {
            let w = StateWord(raw: old)
            if w.isCancelling || w.state == .finished {
                hooks?.trace(.cancelLoser)
                return
            }
            let (done, seen) = word.weakCompareExchange(
                expected: old,
                desired: old | StateWord.cancellingBit,
                successOrdering: .acquiringAndReleasing,
                failureOrdering: .relaxed
            )
            if done { break }
            old = seen
        }
        // We won. The error is stored before the cancelled bit is published (release), and the
        // loop reads it only after it has seen the bit (acquire).
        storedCancelError = error
        let prior = StateWord(raw: word.bitwiseOr(StateWord.cancelledBit, ordering: .acquiringAndReleasing).oldValue)
        hooks?.trace(.cancelWinner)
        hooks?.cancelAfterClaim?()
        // Not scheduled yet: start() (or the queue's add) will see the bit and deliver it.
        if prior.isScheduled && prior.state != .finished {
            hooks?.trace(.cancelScheduled)
            loop.perform { [self] in cancelOnLoop() }
        }
    }

    /// The error a cancellation finishes with. Loop thread, after seeing the cancelled bit.
    var cancelError: any Error {
        storedCancelError ?? OperationError.cancelled
    }

    // MARK: - Loop side

    /// The loop half of start (QRunLoopOperation's startOnRunLoopThread). Loop thread only.
    func startOnLoop() {
        assert(loop.inLoop, "not on the loop thread")
        let w = stateWord
        if w.state == .finished {
            // Cancelled (or drained) while its launch was queued.
            _testsOnlyHooks?.trace(.startOnLoopBounce)
            return
        }
        precondition(w.state == .pending, "start on loop in state \(w.state)")
        if w.isCancelled {
            _testsOnlyHooks?.trace(.startOnLoopCancelled)
            finishCancelled()
            return
        }
        _testsOnlyHooks?.trace(.startOnLoopRun)
        phase = .launching
        acquireExclusivity()
    }

    /// The loop half of cancel (QRunLoopOperation's cancelOnRunLoopThread). Loop thread only.
    func cancelOnLoop() {
        assert(loop.inLoop, "not on the loop thread")
        if state == .finished {
            _testsOnlyHooks?.trace(.cancelOnLoopBounce)
            return
        }
        if phase == .unsubmitted, let inbox = inboxQueue {
            // Still in its queue's inbox: the drain block that will take it may be queued after
            // us (the first adder of a burst queues it once it has pushed). Take it in now.
            inbox.takeUnretainedValue().drainInbox()
            if state == .finished {
                // Taking it in finished it: it was already cancelled when it reached the loop.
                _testsOnlyHooks?.trace(.cancelOnLoopBounce)
                return
            }
        }
        precondition(phase != .unsubmitted, "cancel on loop before the operation reached the loop")
        _testsOnlyHooks?.trace(.cancelOnLoopCancel)
        finishCancelled()
    }

    /// Ends an unfinished operation because it was cancelled: willCancel, then finish with the
    /// cancel error. Loop thread only.
    func finishCancelled() {
        let error = cancelError
        _endedByCancellation = true
        willCancel()
        if state == .finished { return }
        finishOnLoop(errors: [error])
    }

    // MARK: - Finish (loop thread)

    /// Ends the operation: exactly once, on the loop thread, in any state after `initialized`.
    /// Calling it twice, off the loop, or on an operation that was never started traps.
    ///
    /// In order: ``willFinish(error:)``; exclusivity released; ``error`` and ``result`` set; state
    /// flips to `finished`; observers' ``OperationObserver/operationDidFinish(_:errors:)`` (in
    /// order); `await result` callers resumed; the queue told. The queue starts the next
    /// operation only once this call, and the `execute()` or callback it was made from, has
    /// returned.
    public final func finish(error: (any Error)? = nil) {
        loop.preconditionInLoop()
        finishOnLoop(errors: error.map { [$0] } ?? [])
    }

    /// Loop thread only (checked by the public entry points that lead here).
    func finishOnLoop(errors: [any Error]) {
        assert(loop.inLoop, "not on the loop thread")
        let from = state
        precondition(from != .finished, "finish(error:) called twice on \(name)")
        precondition(from != .initialized, "finish(error:) on \(name), which was never started")
        let error = errors.first
        _testsOnlyHooks?.trace(.finish)
        // While it finishes, its queue launches nothing on this stack (``DeviceQueue/finishing``).
        let owner = queue
        owner?.finishing += 1
        defer { owner?.finishing -= 1 }
        willFinish(error: error)
        precondition(state == from, "willFinish(error:) must not finish or start the operation")
        timeoutTimer?.cancel()
        timeoutTimer = nil
        evaluationGeneration &+= 1
        conditionResults = []
        if phase == .awaitingExclusivity { exclusivity?.withdraw(self) }
        if !heldCategories.isEmpty { exclusivity?.release(self) }
        finalError = error
        let old = StateWord(
            raw: word.wrappingAdd(OperationState.finished.rawValue - from.rawValue, ordering: .acquiringAndReleasing)
                .oldValue
        )
        precondition(old.state == from, "state moved under finish (from \(from) to \(old.state))")
        phase = .finished
        for o in _observers { o.operationDidFinish(self, errors: errors) }
        if !resultWaiters.isEmpty {
            let result: Result<Void, any Error> = error.map { .failure($0) } ?? .success(())
            let waiters = resultWaiters
            resultWaiters = []
            for resume in waiters { resume(result) }
        }
        if let q = queue {
            queue = nil
            q.operationDidFinish(self)
        }
    }

    // MARK: - Produce (loop thread)

    /// Hands a new operation to the world while this one runs (Advanced NSOperations'
    /// produceOperation): observers get ``OperationObserver/operation(_:didProduce:)``, and if this
    /// operation is in a queue the new one is added to the end of that queue. Loop thread only.
    public final func produce(_ operation: LoopOperation) {
        loop.preconditionInLoop()
        for o in _observers { o.operation(self, didProduce: operation) }
        queue?.addOperation(operation)
    }

    // MARK: - Transitions (loop thread)

    /// Moves `from → to` (both after `pending`), trapping if the state was not `from`.
    func advance(from: OperationState, to: OperationState) {
        precondition(to > from, "states only move forward")
        let old = StateWord(
            raw: word.wrappingAdd(to.rawValue - from.rawValue, ordering: .acquiringAndReleasing).oldValue
        )
        precondition(old.state == from, "illegal transition \(old.state) → \(to)")
    }

    /// `ready → executing` unless the cancelled bit is set. Returns false if cancelled.
    func enterExecutingUnlessCancelled() -> Bool {
        // Acquiring, also on failure: when the cancelled bit is seen, the cancel error is read next.
        var old = word.load(ordering: .acquiring)
        while true {
            let w = StateWord(raw: old)
            precondition(w.state == .ready, "illegal transition \(w.state) → executing")
            if w.isCancelled { return false }
            let (done, seen) = word.weakCompareExchange(
                expected: old,
                desired: w.with(state: .executing).raw,
                successOrdering: .acquiringAndReleasing,
                failureOrdering: .acquiring
            )
            if done { return true }
            old = seen
        }
    }
}
