import IOLoop

extension ClientConnection {
    /// Stops reading and closes once the replies already owed are written, with `reason`
    /// (server shutdown). Control loop only.
    func drain(_ reason: CloseReason) {
        loop.assertInLoop()
        guard phase == .open else { return }
        phase = .draining(reason)
        updateInterest()
        closeIfIdle()
    }

    /// Stops reading and sending, writes what is queued, then closes with `reason` (at the latest
    /// after the linger timeout, for a client that does not read). Control loop only.
    func closeAfterFlushing(_ reason: CloseReason) {
        loop.assertInLoop()
        guard phase != .closed else { return }
        accepting.store(false, ordering: .releasing)
        if closeReason == nil { closeReason = reason }
        phase = .draining(reason)
        lingerTimer?.cancel()
        lingerTimer = server.scheduler.scheduleTimer(after: server.limits.lingerTimeout) { [weak self] in
            self?.close(reason)
        }
        flushFromEvent()
    }

    /// Closes the connection now: the socket is deregistered and closed, queued output dropped,
    /// the server and the handler told. Idempotent. Control loop only, and never from inside a
    /// handler call (use ``closeSoon(_:)`` there).
    func close(_ reason: CloseReason) {
        loop.assertInLoop()
        guard phase != .closed else { return }
        if closeReason == nil { closeReason = reason }
        phase = .closed
        accepting.store(false, ordering: .releasing)
        lingerTimer?.cancel()
        lingerTimer = nil
        firstRequestTimer?.cancel()
        firstRequestTimer = nil
        // Answers still waiting for their batch will never be read: free them now.
        release(routes.withLock { $0.removeAll() })
        // Under the lock, so that no other thread is writing to the socket as it closes.
        output.withLock { o in
            o.fd = nil
            o.queue.removeAll()
        }
        source?.cancel()
        source = nil
        lineBuffer.reset()
        server.connectionClosed(self)
    }
}
