import ControlProtocol
import IOLoop
import SystemCalls

extension ClientConnection {
    /// Reads per readiness event before yielding to other clients (level-triggered: the rest
    /// comes on the next iteration).
    static let readsPerEvent = 4

    /// The connection's fd source fired. Control loop only.
    func handleEvents(_ events: FDEvents) {
        loop.assertInLoop()
        if events.contains(.error) {
            var errno = Errno.ioError
            if let fd = source?.fd, let pending = try? Socket.pendingError(fd) { errno = pending }
            close(.readFailed(errno))
            return
        }
        if events.contains(.hangup) {
            // The peer closed both directions: nobody can read replies; drop what it sent.
            close(.peerClosed)
            return
        }
        if events.contains(.readable) { readInput() }
        if events.contains(.writable), state.current != .closed { flushFromEvent() }
    }

    private func readInput() {
        guard let fd = source?.fd else { return }
        let buffer = server.readBuffer
        for _ in 0..<Self.readsPerEvent {
            guard wantsInput else { return }
            // Raw bytes are only copied on (their back-pressure bounds them); request bytes are
            // parsed, and share the turn's budget with every other client.
            let raw = state.current == .raw
            let size = raw ? buffer.count : min(buffer.count, server.inputBudget.allowance(in: loop, for: &inputShare))
            if size == 0 {
                // Readable still: the next turn reports it again, after the loop's other events.
                server.counters.inputDeferrals.increment()
                return
            }
            let result: IOResult<Int>
            let room = UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[..<size]))
            do {
                result = try FileIO.read(fd, into: room)
            } catch {
                close(.readFailed(error.errno))
                return
            }
            switch result {
            case .wouldBlock:
                return
            case .processed(0):
                inputEnded()
                return
            case .processed(let n):
                if !raw { server.inputBudget.spend(n, by: &inputShare) }
                let bytes = UnsafeBufferPointer(start: buffer.baseAddress, count: n)
                if raw, let sink = rawSink {
                    sink(Array(bytes))
                } else if !consumeRequestBytes(bytes) {
                    return
                }
                // A short read emptied the socket: asking again would only hear EAGAIN (one
                // wasted syscall per request). Level-triggered epoll reports anything newer.
                if n < size { return }
            }
        }
    }

    /// Splits request bytes into lines and handles them. Bytes after an `attach` line are kept
    /// for its outcome. Returns false when reading must stop (a line too long, or an `attach`).
    @discardableResult
    func consumeRequestBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        loop.assertInLoop()
        switch lineBuffer.feed(bytes, { self.processLine($0) }) {
        case .needMore:
            return true
        case .lineTooLong:
            lineTooLong()
            return false
        case .stopped(let unusedFrom):
            if state.current == .awaitingAttach { bytesAfterAttach = Array(bytes[unusedFrom...]) }
            return false
        }
    }

    @discardableResult
    func consumeRequestBytes(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer { consumeRequestBytes($0) }
    }

    /// Decodes one line and hands the request on, or answers the rejection (batches,
    /// notifications and `rpc.discover`: ``handle(_:)``). Returns whether to go on with the next
    /// line.
    private func processLine(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard state.current.isOpen else { return false }
        firstRequestCompleted()
        // The common requests straight from the fast path (what `IncomingMessage.decode` tries
        // first): wrapped in the message enum, the request was destroyed through its value
        // witnesses, about 170 instructions a request. Anything else goes to the general decoder
        // alone, without a second try of the fast path.
        if let request = Request.decodeFastPath(line, names: &deviceNames) {
            handOver(request)
            return state.current == .requests
        }
        switch IncomingMessage.decodeGeneral(line) {
        case .single(.request(let request)):
            handOver(request)
        case .single(let call):
            handle(call)
        case .batch(let calls):
            handle(batch: calls)
        }
        return state.current == .requests
    }

    /// The client shut down its sending side: answer what it asked, then close.
    private func inputEnded() {
        guard state.move(to: .draining) != nil else { return }
        closingReason = .peerClosed
        lineBuffer.reset()
        updateInterest()
        closeIfIdle()
    }

    /// A request line over the limit: one final error line, then close.
    private func lineTooLong() {
        let limit = server.limits.maxLineBytes
        let reason = CloseReason.lineTooLong(limit: limit)
        // Counted now; logged (at warning) when the connection closes, with the reason.
        server.counters.disconnectedLineTooLong.increment()
        var reply: [UInt8] = []
        let error = RPCError(.invalidRequest, "request line longer than \(limit) bytes; closing the connection")
        ResponseEncoder.failure(id: nil, error: error, into: &reply)
        // The senders stop; only the final line goes out.
        guard state.move(to: .flushing) != nil else { return }
        closeReason = reason
        closingReason = reason
        queuedBytes.wrappingAdd(reply.count, ordering: .relaxed)
        output.withLock { $0.queue.append(reply) }
        lingerTimer = server.scheduler.scheduleTimer(after: server.limits.lingerTimeout) { [weak self] in
            self?.close(reason)
        }
        flushFromEvent()
    }

    /// Whether the client's bytes are read now: reading requests or raw bytes (not waiting for
    /// an `attach`'s answer, nor draining or closing), and not held back by its own unread output
    /// or by a raw device's back-pressure. Control loop only.
    var wantsInput: Bool {
        let state = state.current
        return (state == .requests || state == .raw) && !readPaused && !rawInputPaused
    }

    /// Pauses reading while too much output is queued, and asks for writability while anything
    /// is. Control loop only.
    func updateInterest() {
        loop.assertInLoop()
        guard source != nil else { return }
        updateInterest(queued: output.withLock { $0.queue.byteCount })
    }

    /// ``updateInterest()`` with the queued byte count the caller just read under the lock.
    /// Control loop only.
    func updateInterest(queued: Int) {
        loop.assertInLoop()
        guard let source else { return }
        let high = maxOutboundBytes / 2
        let low = maxOutboundBytes / 4
        if !readPaused && queued > high {
            readPaused = true
        } else if readPaused && queued <= low {
            readPaused = false
        }
        var interest: FDInterest = []
        if wantsInput { interest.insert(.readable) }
        if queued > 0 { interest.insert(.writable) }
        source.setInterest(interest)
    }
}
