import IOLoop
import Operations

extension Accessory {
    /// Discards inbound bytes until the line has been quiet for the settle time (bounded at four
    /// settle times for devices that never go quiet, such as a GPS stream), then lets the queue
    /// go on. After a `transact` cancelled before its answer came (an explicit cancel, or its
    /// client left), that answer is still on its way: the resync first waits for it (until a frame
    /// completes it, or until it was due), then settles. Device loop.
    func startResync(after previous: LoopOperation, done: @escaping () -> Void) {
        let settle = settings.resync.settleMs
        let now = loop.now
        let due = (previous as? RequestOperation)?.abandonedResponseDue.flatMap { $0 > now ? $0 : nil }
        reader?.reset()
        guard settle > 0 || due != nil, state == .ready else { return done() }
        log(.debug, "\(name): resync after \(previous.name)")
        resync = ResyncState(done: done, lastByteAt: now, startedAt: now, awaitingResponseUntil: due)
        armResyncTimer(after: due.map { $0 - now } ?? .milliseconds(settle))
    }

    /// Just reopened after a removal that interrupted a `transact`: discards its answer (until a
    /// frame completes it, or until it was due) and then the settle time, then calls `done`.
    /// Device loop.
    func awaitLateAnswer(until due: LoopInstant, then done: @escaping () -> Void) {
        let now = loop.now
        reader?.reset()
        resync = ResyncState(done: done, lastByteAt: now, startedAt: now, awaitingResponseUntil: due)
        armResyncTimer(after: due - now)
    }

    private func armResyncTimer(after delay: Duration) {
        resync?.timer = loop.scheduleTimer(after: delay) { [link] in link.accessory?.resyncTimerFired() }
    }

    private func resyncTimerFired() {
        guard var r = resync else { return }
        r.timer = nil
        resync = r
        let settle = Duration.milliseconds(settings.resync.settleMs)
        let now = loop.now
        if let due = r.awaitingResponseUntil {
            guard now >= due else { return armResyncTimer(after: due - now) }
            // The abandoned answer did not come in time: settle as after a timeout.
            return startSettling(now)
        }
        let quietFor = now - r.lastByteAt
        if quietFor >= settle || now - r.startedAt >= settle * 4 {
            resync = nil
            reader?.reset()
            r.done()
            onMaybeIdle?(self)
        } else {
            armResyncTimer(after: settle - quietFor)
        }
    }

    /// Ends the wait for an abandoned answer; the settle phase starts now. (The reader is reset
    /// when the resync ends: this may run inside the reader's own frame callback.)
    private func startSettling(_ now: LoopInstant) {
        resync?.timer?.cancel()
        resync?.awaitingResponseUntil = nil
        resync?.startedAt = now
        resync?.lastByteAt = now
        armResyncTimer(after: .milliseconds(settings.resync.settleMs))
    }

    /// A frame arrived during a resync (and was discarded). If it completes the abandoned answer,
    /// the settle phase starts (on a timer, never from inside the byte handler). Device loop.
    func resyncDiscarded(frame: [UInt8]) {
        guard resync?.awaitingResponseUntil != nil, frameCompletes(frame) else { return }
        startSettling(loop.now)
    }

    func noteResyncBytes() {
        resync?.lastByteAt = loop.now
    }

    /// Ends a resync at once (the device went away). Device loop.
    func cancelResync() {
        guard let r = resync else { return }
        r.timer?.cancel()
        resync = nil
        r.done()
    }
}

/// Device loop only.
struct ResyncState {
    let done: () -> Void
    var lastByteAt: LoopInstant
    var startedAt: LoopInstant
    /// While set, the answer of a cancelled `transact` is awaited (and discarded) until then.
    var awaitingResponseUntil: LoopInstant?
    var timer: LoopTimer?
}
