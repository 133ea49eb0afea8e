import IOLoop

/// A connection that never completes a request line holds a client slot and costs its user
/// nothing: it is closed after ``ControlServerLimits/idleConnectionTimeout``. A partial line
/// that stalls does not count as a request. Once one line is complete, the connection may be
/// silent for as long as it likes: it may wait for notifications, a lock or an attached
/// accessory, and its requests are bounded by the other limits.
extension ClientConnection {
    /// Starts the clock at accept. Control loop only.
    func startFirstRequestTimer() {
        loop.assertInLoop()
        guard let timeout = server.limits.idleConnectionTimeout else { return }
        // Found by id, not through a weak reference: a weak reference gives the connection a side
        // table for good, and every retain and release of it (several a request) then takes the
        // slow path. Unowned server: the timer fires only while the connection is open (closing
        // cancels it), and an open connection holds its server.
        firstRequestTimer = server.scheduler.scheduleTimer(after: timeout) { [unowned server, id] in
            server.connections[id]?.firstRequestTimedOut(timeout)
        }
    }

    /// A request line is complete: the clock stops for good. Control loop only.
    func firstRequestCompleted() {
        guard let timer = firstRequestTimer else { return }
        timer.cancel()
        firstRequestTimer = nil
    }

    private func firstRequestTimedOut(_ timeout: Duration) {
        loop.assertInLoop()
        firstRequestTimer = nil
        guard state.current != .closed else { return }
        server.counters.disconnectedIdle.increment()
        close(.noRequest(timeout: timeout))
    }
}
