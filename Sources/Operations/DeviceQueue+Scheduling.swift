import IOLoop

/// The loop side of the queue: taking adds in, launching, moving on after a finish. Loop thread
/// only.
extension DeviceQueue {
    /// Takes in everything other threads pushed, oldest first.
    func drainInbox() {
        guard let newest = crossThread.inbox.exchange(nil, ordering: .acquiring) else { return }
        // The stack is newest first: reverse the links, then walk oldest first.
        var oldest: UnsafeMutableRawPointer?
        var cursor: UnsafeMutableRawPointer? = newest
        while let node = cursor {
            let op = Unmanaged<LoopOperation>.fromOpaque(node).takeUnretainedValue()
            cursor = op.inboxNext
            op.inboxNext = oldest
            oldest = node
        }
        while let node = oldest {
            let op = Unmanaged<LoopOperation>.fromOpaque(node).takeRetainedValue()
            oldest = op.inboxNext
            op.inboxNext = nil
            op.inboxQueue = nil
            enqueueOnLoop(op, runNext: op.inboxRunNext)
        }
    }

    /// Puts an operation that reached the loop in line.
    func enqueueOnLoop(_ operation: LoopOperation, runNext: Bool) {
        assert(loop.inLoop, "not on the loop thread")
        operation.phase = .queued
        operation.queue = self
        if runNext {
            waiting.prepend(operation)
        } else {
            waiting.append(operation)
        }
        delegate?.deviceQueue(self, didAdd: operation)
        if operation.isCancelled && operation.state != .finished {
            // Cancelled before it was added: it never executes and need not wait for its turn.
            operation.finishCancelled()
        }
    }

    /// Whether an operation added now may be launched before the add returns: the queue is idle
    /// and none of its operations is on the stack (not launching, not finishing), so the caller is
    /// a client's read, a timer or another queue, never the operation before it. Saves the add a
    /// loop turn (a `perform` and its wake-up bookkeeping, about 600 instructions a request).
    var mayLaunchOnCallersStack: Bool {
        !pumping && finishing == 0 && currentOperation == nil && !isSuspended && !isResyncing
    }

    /// Pumps on a later loop turn (once, however often it is asked).
    func schedulePump() {
        if pumpScheduled { return }
        pumpScheduled = true
        loop.perform { [self] in
            pumpScheduled = false
            pump()
        }
    }

    /// Launches what can be launched, at most `launchBudget` operations. Called only at the top of
    /// a loop turn of the queue's own (never on an operation's stack). An operation that finishes
    /// inside its `execute()` makes the call go round again once that `execute()` returned.
    func pump() {
        if pumping {
            pumpAgain = true
            return
        }
        pumping = true
        defer { pumping = false }
        var launched = 0
        repeat {
            pumpAgain = false
            while currentOperation == nil && !isSuspended && !isResyncing, let head = takeLaunchable() {
                if launched == DeviceQueue.launchBudget {
                    // Give the loop's timers and descriptors a turn; go on from a later turn.
                    waiting.prepend(head)
                    schedulePump()
                    return
                }
                launched += 1
                currentOperation = head
                head.phase = .launching
                head.startOnLoop()
            }
        } while pumpAgain
    }

    /// Removes and returns the operation to launch next, after finishing cancelled ones and
    /// inserting produced dependencies ahead of the head; nil if the line is empty.
    private func takeLaunchable() -> LoopOperation? {
        while let head = waiting.first {
            if head.state == .finished {
                // Cancelled while queued; removed lazily so that cancelling is O(1).
                waiting.removeFirst()
                continue
            }
            if head.isCancelled {
                // Its cancel-on-loop block is on its way and will bounce.
                waiting.removeFirst()
                head.finishCancelled()
                continue
            }
            if !head.dependenciesProduced {
                head.dependenciesProduced = true
                let dependencies = head._conditions.compactMap { $0.dependency(for: head) }
                if !dependencies.isEmpty {
                    // Inserted directly ahead of the operation, in condition order; then the first
                    // of them is considered (its own conditions may do the same).
                    for dependency in dependencies.reversed() {
                        prepare(dependency)
                        dependency.submit("a produced dependency", synchronously: true) { [self] in
                            enqueueOnLoop(dependency, runNext: true)
                        }
                    }
                    continue
                }
            }
            return waiting.removeFirst()
        }
        return nil
    }

    /// Called by an operation of this queue once it has finished (observers have run).
    func operationDidFinish(_ operation: LoopOperation) {
        assert(loop.inLoop, "not on the loop thread")
        crossThread.depth.subtract(1, ordering: .relaxed)
        var resyncHook: ResyncHook?
        if operation === currentOperation {
            currentOperation = nil
            if let hook = resync, operation.needsResync {
                // Set before the delegate runs, so nothing it adds can start ahead of the resync.
                isResyncing = true
                resyncHook = hook
            }
        }
        delegate?.deviceQueue(self, didFinish: operation)
        if let resyncHook {
            resyncToken &+= 1
            let token = resyncToken
            resyncHook(operation) { [weak self] in
                guard let self else { return }
                self.loop.preconditionInLoop()
                guard self.isResyncing, self.resyncToken == token else { return }  // done called twice
                self.isResyncing = false
                self.schedulePump()
            }
        }
        if pumping {
            pumpAgain = true  // finished inside execute(): the running pump goes on after it returns
        } else if !waiting.isEmpty {
            schedulePump()  // finished from a callback: the next one starts on a later turn
        }
    }
}
