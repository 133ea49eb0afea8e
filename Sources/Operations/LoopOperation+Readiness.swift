import IOLoop

/// The loop-side steps between "start on loop" and ``LoopOperation/execute()``: exclusivity, then
/// conditions, then `ready → executing`. Loop thread only.
extension LoopOperation {
    /// The categories of this operation's mutually exclusive conditions, without repeats.
    var exclusiveCategories: [String] {
        var seen: [String] = []
        for c in _conditions where c.isMutuallyExclusive && !seen.contains(c.name) {
            seen.append(c.name)
        }
        return seen
    }

    /// Step 1: hold every exclusive category, or wait in the controller's line for them.
    func acquireExclusivity() {
        let categories = exclusiveCategories
        if categories.isEmpty {
            evaluateConditions()
            return
        }
        guard let controller = queue?.exclusivity ?? _exclusivityController else {
            preconditionFailure(
                "\(name) has mutually exclusive conditions but no ExclusivityController: add it to a DeviceQueue or set exclusivityController"
            )
        }
        exclusivity = controller
        phase = .awaitingExclusivity
        if controller.request(categories, for: self) {
            evaluateConditions()
        }
        // Otherwise the controller calls `exclusivityGranted()` (through perform) later.
    }

    /// Called (on a later loop turn) once the controller granted our categories.
    func exclusivityGranted() {
        assert(loop.inLoop, "not on the loop thread")
        // A cancel may have finished us between the grant and this turn; finish released the grant.
        guard phase == .awaitingExclusivity, state == .pending else { return }
        if isCancelled {
            finishCancelled()
            return
        }
        evaluateConditions()
    }

    /// Step 2: evaluate every condition (each may answer now or on a later loop turn).
    func evaluateConditions() {
        if _conditions.isEmpty {
            becomeReadyAndExecute()
            return
        }
        phase = .evaluatingConditions
        evaluationGeneration &+= 1
        let generation = evaluationGeneration
        conditionResults = Array(repeating: nil, count: _conditions.count)
        pendingConditionCount = _conditions.count
        for (index, condition) in _conditions.enumerated() {
            var answered = false
            condition.evaluate(for: self) { [self] result in
                loop.preconditionInLoop()
                precondition(!answered, "condition \(condition.name) completed twice")
                answered = true
                // Ignore answers for a round that ended (the operation was cancelled meanwhile).
                guard generation == evaluationGeneration, phase == .evaluatingConditions else { return }
                conditionResults[index] = result
                pendingConditionCount -= 1
                if pendingConditionCount == 0 { conditionsEvaluated() }
            }
        }
    }

    private func conditionsEvaluated() {
        var errors: [any Error] = []
        for (condition, result) in zip(_conditions, conditionResults) {
            if case .failed(let underlying)? = result {
                errors.append(OperationError.conditionFailed(condition: condition.name, underlying: underlying))
            }
        }
        evaluationGeneration &+= 1
        conditionResults = []
        if !errors.isEmpty {
            finishOnLoop(errors: errors)
            return
        }
        if isCancelled {
            // Its cancel-on-loop block is queued and will bounce; finish now rather than execute.
            finishCancelled()
            return
        }
        becomeReadyAndExecute()
    }

    /// Step 3: `pending → ready → executing`, observers, timeout, `execute()`.
    func becomeReadyAndExecute() {
        advance(from: .pending, to: .ready)
        guard enterExecutingUnlessCancelled() else {
            finishCancelled()
            return
        }
        phase = .executing
        _didExecute = true
        _testsOnlyHooks?.trace(.execute)
        for o in _observers { o.operationDidStart(self) }
        if let t = _timeout, state == .executing {
            timeoutTimer = loop.scheduleTimer(after: t) { [weak self] in
                self?.cancel(error: OperationError.timedOut)
            }
        }
        if state == .executing { execute() }
    }
}
