import IOLoop
import SystemCalls

extension ControlServer {
    /// Shuts the server down and returns when it is done (see
    /// ``beginShutdown(flushTimeout:completion:)``). Any thread except the control loop's.
    package func shutdown(flushTimeout: Duration = .milliseconds(500)) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            beginShutdown(flushTimeout: flushTimeout) { continuation.resume() }
        }
    }

    /// Stops accepting at once (the socket file is removed if it is still ours, the listening
    /// socket closed), stops reading requests, lets the replies to requests already received be
    /// written for up to `flushTimeout`, then closes every connection (the handler hears
    /// ``ControlRequestHandler/connectionDidClose(_:)`` for each) and calls `completion` on the
    /// control loop. Idempotent: later calls just wait for the same end. Any thread.
    ///
    /// Shut the server down before its loop; if the loop is already gone, only the socket file is
    /// removed and `completion` runs on the calling thread.
    package func beginShutdown(flushTimeout: Duration = .milliseconds(500), completion: (@Sendable () -> Void)? = nil) {
        let queued = loop.perform { self.shutdownOnLoop(flushTimeout: flushTimeout, completion: completion) }
        if !queued {
            socketFile?.removeIfOurs()
            completion?()
        }
    }

    private func shutdownOnLoop(flushTimeout: Duration, completion: (@Sendable () -> Void)?) {
        loop.assertInLoop()
        switch state {
        case .stopped:
            completion?()
            return
        case .shuttingDown:
            if let completion { shutdownCompletions.append(completion) }
            return
        case .created, .running:
            break
        }
        if let completion { shutdownCompletions.append(completion) }
        state = .shuttingDown
        stopListening()
        logger.log(.info, "control socket \(socketName) closed; \(connections.count) clients to finish")
        if connections.isEmpty {
            finishShutdown()
            return
        }
        shutdownTimer = scheduler.scheduleTimer(after: flushTimeout) { [weak self] in self?.finishShutdown() }
        for connection in clients { connection.drain(.serverShutdown) }
    }

    private func stopListening() {
        acceptPause.cancel()
        // Remove the name first, so that a client arriving now is told "no such file" rather than
        // waiting in a queue nobody reads.
        socketFile?.removeIfOurs()
        listenSource?.cancel()
        listenSource = nil
        pendingListener.withLock { $0.take() }?.close()
    }

    /// Closes what is left and reports the end. Control loop only.
    func finishShutdown() {
        loop.assertInLoop()
        guard state == .shuttingDown else { return }
        shutdownTimer?.cancel()
        shutdownTimer = nil
        // Stopped first, so that the closes below (which call back into `connectionClosed`) do
        // not finish again; iterate a copy.
        state = .stopped
        for connection in clients { connection.close(.serverShutdown) }
        logger.log(.info, "control server stopped")
        let completions = shutdownCompletions
        shutdownCompletions = []
        for completion in completions { completion() }
    }
}
