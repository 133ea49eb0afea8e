import IOLoop

extension ClientConnection {
    /// Stops reading and closes once the replies already owed are written, with `reason`
    /// (server shutdown). Control loop only.
    func drain(_ reason: CloseReason) {
        loop.assertInLoop()
        guard state.move(to: .draining) != nil else { return }
        closingReason = reason
        updateInterest()
        closeIfIdle()
    }

    /// Stops reading and sending, writes what is queued, then closes with `reason` (at the latest
    /// after the linger timeout, for a client that does not read). Control loop only.
    func closeAfterFlushing(_ reason: CloseReason) {
        loop.assertInLoop()
        // Flushing already: only the linger timer starts again.
        guard state.current == .flushing || state.move(to: .flushing) != nil else { return }
        if closeReason == nil { closeReason = reason }
        closingReason = reason
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
        guard state.move(to: .closed) != nil else { return }
        if closeReason == nil { closeReason = reason }
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
        rawSink = nil
        server.connectionClosed(self)
    }
}
