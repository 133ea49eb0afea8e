import IOLoop
import SystemCalls

extension ClientConnection {
    /// Gets a sent line out: written here when this thread may (see ``ConnectionOutput``),
    /// otherwise queued on the control loop. The line is already accounted in `queuedBytes`.
    /// Any thread.
    func dispatch(_ line: [UInt8], isResponse: Bool) {
        if loop.inLoop {
            enqueue(line, isResponse: isResponse, handedOver: false)
            return
        }
        switch writeThrough(line, isResponse: isResponse) {
        case .written:
            break
        case .partlyWritten:
            // The rest waits in the queue: the loop must ask for writability.
            loop.perform { self.updateInterest() }
        case .failed(let errno):
            closeSoon(.writeFailed(errno))
        case .handOver:
            if !loop.perform({ self.enqueue(line, isResponse: isResponse, handedOver: true) }) {
                queuedBytes.wrappingSubtract(line.count, ordering: .relaxed)
            }
        }
    }

    /// Writes `line` on the calling thread if nothing is queued or on its way to the loop, the
    /// connection is open, and the socket takes it; otherwise reserves its place in the order of
    /// lines (``ConnectionOutput/linesInFlight``) for the hand-over. Any thread but the loop's.
    ///
    /// Only an open connection is written here: draining and closing are decided on the control
    /// loop, which must then see every line go by. The state is read inside the lock, and the loop
    /// takes the lock after each of its moves before it decides anything (``closeIfIdle()``,
    /// ``flushFromEvent()``), so no line written here slips past such a decision.
    private func writeThrough(_ line: [UInt8], isResponse: Bool) -> WriteThroughOutcome {
        output.withLock { o in
            guard state.current.isOpen, o.linesInFlight == 0, o.queue.isEmpty, o.fd != nil else {
                o.linesInFlight += 1
                return .handOver
            }
            if isResponse { o.responseLeaving() }
            switch o.write(line) {
            case .success(let written):
                queuedBytes.wrappingSubtract(written, ordering: .relaxed)
                return o.queue.isEmpty ? .written : .partlyWritten
            case .failure(let errno):
                return .failed(errno)
            }
        }
    }

    /// Queues a line on the loop and writes at once if nothing was waiting. Never closes the
    /// connection directly (it may run inside a handler call); failures close it via perform.
    /// `handedOver`: the line came from another thread's ``dispatch(_:isResponse:)``.
    /// Control loop only.
    func enqueue(_ line: some OutgoingLine, isResponse: Bool, handedOver: Bool) {
        loop.assertInLoop()
        let open = state.current.acceptsLines
        // One lock: what is left queued after the write comes out with the outcome.
        let (failure, queued): (CloseReason?, Int) = output.withLock { o in
            if handedOver { o.linesInFlight -= 1 }
            if isResponse { o.responseLeaving() }
            guard open else { return (nil, 0) }
            guard o.queue.isEmpty else {
                o.queue.append(line.kept())
                return (nil, o.queue.byteCount)
            }
            return (write(line, &o), o.queue.byteCount)
        }
        guard open else {
            queuedBytes.wrappingSubtract(line.count, ordering: .relaxed)
            return
        }
        if let failure {
            closeSoon(failure)
            return
        }
        updateInterest(queued: queued)
        if state.current == .draining, !idleCheckScheduled {
            idleCheckScheduled = true
            loop.perform {
                self.idleCheckScheduled = false
                self.closeIfIdle()
            }
        }
    }

    /// The socket is writable (or a final line was just queued): write, then close if that was
    /// all that was left to do. Control loop only.
    func flushFromEvent() {
        loop.assertInLoop()
        if let failure = output.withLock({ writeQueued(&$0) }) {
            close(failure)
            return
        }
        updateInterest()
        closeIfIdle()
    }

    /// Queues `line` and writes as ``writeQueued(_:)`` does, `line` straight from its array
    /// (``ConnectionOutput/write(_:)``). Inside the output lock, with nothing queued.
    private func write(_ line: some OutgoingLine, _ o: inout ConnectionOutput) -> CloseReason? {
        switch o.write(line) {
        case .success(let written):
            if written > 0 { queuedBytes.wrappingSubtract(written, ordering: .relaxed) }
            return nil
        case .failure(let errno):
            return .writeFailed(errno)
        }
    }

    /// Writes what is queued until done or the socket is full, and accounts the bytes. Returns
    /// the close reason if the write failed. Inside the output lock.
    private func writeQueued(_ o: inout ConnectionOutput) -> CloseReason? {
        switch o.writeQueued() {
        case .success(let written):
            if written > 0 { queuedBytes.wrappingSubtract(written, ordering: .relaxed) }
            return nil
        case .failure(let errno):
            return .writeFailed(errno)
        }
    }

    /// Draining: closes once every reply the client is owed has been written. Flushing: closes
    /// once what is queued is written (the senders are off). Control loop only.
    func closeIfIdle() {
        loop.assertInLoop()
        let state = state.current
        guard state == .draining || state == .flushing, let reason = closingReason else { return }
        let (empty, owed) = output.withLock { ($0.queue.isEmpty, $0.pendingRequests) }
        guard empty else { return }
        if owed == 0 || state == .flushing { close(reason) }
    }
}
