import ControlProtocol
import IOLoop
import Operations

extension Accessory {
    /// The queue's resync hook: runs after an operation that ended without finishing its
    /// exchange, before the next one starts (see ``Resync``). After a `transact` that gave up on
    /// its answer (timed out, cancelled, its client gone), that answer is awaited for the late
    /// window; then the probe, if configured; then the settle time. Device loop.
    func startResync(after previous: LoopOperation, done: @escaping () -> Void) {
        loop.assertInLoop()
        reader?.reset()
        guard state == .ready else { return done() }
        let now = loop.now
        let request = previous as? RequestOperation
        let lateUntil = request.flatMap { lateWindowEnd(for: $0, now: now) }
        guard lateUntil != nil || resync.probe != nil || settings.resync.settleMs > 0 else { return done() }
        counters.resyncs += 1
        // Not the operation's name: it holds a client's request id, and anyone may read status.
        resyncCause = request?.endDescription ?? "an operation that was cancelled"
        resync.start(lateAnswerUntil: lateUntil, probe: true, done: done)
    }

    /// When the late window after `request` ends, if it left an answer owed: its own timeout, at
    /// least 1 s, at most `resync.late_ms`, counted from now (timeout and cancel alike).
    private func lateWindowEnd(for request: RequestOperation, now: LoopInstant) -> LoopInstant? {
        guard request.leftAnswerOwed else { return nil }
        let timeoutMs = Int((request.responseTimeout / .milliseconds(1)).rounded(.up))
        let windowMs = settings.resync.lateWindowMs(requestTimeoutMs: timeoutMs)
        return windowMs > 0 ? now + .milliseconds(windowMs) : nil
    }

    /// Just reopened after a removal: settles (discarding what the device says as it comes back),
    /// and with `after_reopen: late_answer` first awaits the answer of a `transact` the removal
    /// interrupted, until that request's old deadline. Then calls `done`. Device loop.
    func settleAfterReopen(lateAnswerUntil due: LoopInstant?, then done: @escaping () -> Void) {
        reader?.reset()
        resyncCause = "the reopen"
        resync.start(lateAnswerUntil: due, probe: false, done: done)
    }

    /// Ends a resync at once (the device went away). Device loop.
    func cancelResync() {
        resync.cancel()
    }

    /// Whether a new request may queue without `wait_ms`: ready, and not probing a line whose
    /// probe has failed (that may last; a request says how long it will wait). Device loop.
    var isReadyForRequests: Bool {
        guard state == .ready else { return false }
        switch resync.phase {
        case .probeBackoff: return false
        case .probing(let attempt, _): return attempt == 1
        default: return true
        }
    }

    /// A request with `wait_ms` queued while a resync runs: it waits in the queue at most until
    /// `deadline`, then fails with `wait expired` if it has not started and a resync still runs
    /// (behind other requests, a request waits its turn as always). Device loop.
    func boundWaitBehindResync(_ op: RequestOperation, until deadline: LoopInstant) {
        resync.boundWait(of: op, until: deadline) { [link] op in
            guard let accessory = link.accessory else { return }
            op.cancel(error: AccessoryError.waitExpired(device: accessory.name, what: "the resync to end"))
        }
    }

    /// `device.status`'s `resync` object, or nil when none is running. Device loop.
    func resyncStatus() -> DeviceStatusResult.Resync? {
        guard resync.isActive, let started = resync.startedAt else { return nil }
        let now = loop.now
        let probeAttempt: Int64? =
            switch resync.phase {
            case .probing(let attempt, _), .probeBackoff(let attempt, _): Int64(attempt)
            default: nil
            }
        return DeviceStatusResult.Resync(
            waitingFor: resync.phase.waitingFor,
            after: resyncCause,
            sinceMs: Self.milliseconds(now - started),
            untilMs: resync.phaseEnds.map { Self.milliseconds(max(.zero, $0 - now)) },
            probeAttempt: probeAttempt
        )
    }

    private static func milliseconds(_ d: Duration) -> Int64 { Int64(d / .milliseconds(1)) }

    /// What `device.status`, `devices.list` and `device.state` report: `resyncing` while a ready
    /// accessory discards a late answer, probes or settles. Device loop.
    var reportedState: DeviceState {
        state == .ready && resync.isActive ? .resyncing : state
    }

    var reportedReason: String {
        guard reportedState == .resyncing else { return stateReason }
        return "waiting for the \(resync.phase.waitingFor) after \(resyncCause)"
    }
}

extension AccessoryLink: ResyncDelegate {
    func resyncFrameCompletesLateAnswer(_ frame: [UInt8]) -> Bool {
        accessory?.frameCompletes(frame) ?? true
    }

    func resyncSendProbe() -> Bool {
        accessory?.sendProbe() ?? false
    }

    func resyncPhaseChanged(_ resync: Resync, from old: Resync.Phase) {
        guard let accessory else { return }
        accessory.log(.debug, "\(accessory.name): resync: \(resync.phase.waitingFor) (was \(old.waitingFor))")
        if resync.phase == .idle {
            // The framer starts clean for the next request (not from inside its own callback:
            // the resync ends from a timer).
            accessory.reader?.reset()
        }
        // Entering and leaving a resync of a ready accessory are announced (not one cut short
        // by a removal: its state change says it); the phases in between show in device.status.
        if old == .idle, accessory.state == .ready {
            accessory.resyncAnnounced = true
            accessory.onStateChange?(accessory)
        } else if resync.phase == .idle, accessory.resyncAnnounced {
            accessory.resyncAnnounced = false
            if accessory.channel != nil { accessory.onStateChange?(accessory) }
        }
        if resync.phase == .idle { accessory.onMaybeIdle?(accessory) }
    }

    func resyncDiscardedFrame() {
        accessory?.counters.resyncDiscardedFrames += 1
    }

    func resyncProbeFailed(attempt: Int, reason: String) {
        guard let accessory else { return }
        accessory.counters.probeFailures += 1
        accessory.log(.warning, "\(accessory.name): resync probe attempt \(attempt) failed: \(reason)")
    }
}

extension Accessory {
    /// Writes the configured probe as one frame. Device loop.
    func sendProbe() -> Bool {
        guard let probe = settings.resync.probe, let channel, let reader else { return false }
        do {
            let encoded = try reader.encode(Array(probe.send.utf8))
            try channel.write(encoded)
            // The daemon's own bytes: traced with no client or request.
            if let tap { tap.record(.tx, encoded, client: nil, request: nil) }
            counters.bytesOut += UInt64(encoded.count)
            counters.framesOut += 1
            return true
        } catch {
            counters.lastError = "resync probe: \(error)"
            return false
        }
    }
}
