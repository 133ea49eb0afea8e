import IOLoop

/// What an accessory's resync asks of the accessory. Device loop only.
protocol ResyncDelegate: AnyObject {
    /// Whether `frame` completes the answer the resync waits for (the `until` pattern, or any
    /// frame when there is none).
    func resyncFrameCompletesLateAnswer(_ frame: [UInt8]) -> Bool
    /// Sends the probe; false if it could not be written (counted as a failed attempt).
    func resyncSendProbe() -> Bool
    /// The phase changed (for `device.status`, `device.state` and the log).
    func resyncPhaseChanged(_ resync: Resync, from old: Resync.Phase)
    /// A frame was discarded (for the counters).
    func resyncDiscardedFrame()
    /// A probe attempt failed: no answer in time, or it could not be sent.
    func resyncProbeFailed(attempt: Int, reason: String)
}

/// Keeps a request's answer from reaching the next request: after a request ended without its
/// answer (timed out, cancelled, its client gone, or a raw session ended), everything the device
/// sends is discarded until the line is provably or very probably back in step. Then `done`
/// lets the accessory's queue go on.
///
/// The phases, in order (each may be skipped):
/// 1. ``Phase/awaitingLateAnswer(until:)``: the answer of the request that gave up is still owed;
///    it is awaited (and discarded) until a frame completes it, or until the late window ends.
/// 2. ``Phase/probing(attempt:until:)``: the probe is sent and frames are discarded until one
///    matches its expected answer. A device that answers in order is then back in step, however
///    late the old answer was. An attempt that gets no answer in time is reported and retried
///    after a back-off (``Phase/probeBackoff(attempt:until:)``), doubling up to
///    ``maximumProbeBackoff``. Every probe sent must be answered before the line counts as in
///    step: an answer to an earlier attempt that comes late must not be handed to a request.
/// 3. ``Phase/settling(since:)``: bytes are discarded until the line has been quiet for the
///    settle time, or for at most four settle times on a line that never goes quiet (a GPS).
///
/// Its timer goes through a ``LoopScheduler``, so its tests run on virtual time.
///
/// Device loop only.
final class Resync {
    /// Where a resync is. `until` and `since` are instants of the scheduler's clock.
    ///
    /// Threading: a value. Any thread.
    enum Phase: Equatable {
        case idle
        case awaitingLateAnswer(until: LoopInstant)
        case probing(attempt: Int, until: LoopInstant)
        case probeBackoff(attempt: Int, until: LoopInstant)
        case settling(since: LoopInstant)

        /// For `device.status`: what the resync waits for.
        var waitingFor: String {
            switch self {
            case .idle: "nothing"
            case .awaitingLateAnswer: "late answer"
            case .probing, .probeBackoff: "probe"
            case .settling: "settle"
            }
        }
    }

    /// A probe: what answer proves sync, and how long to wait for it (what to send is the
    /// delegate's: it frames and writes it).
    ///
    /// Threading: a value, kept on the device loop (a ``FramePattern`` is not `Sendable`).
    struct Probe {
        let expect: FramePattern
        let timeout: Duration
    }

    /// The first wait before a failed probe is sent again; it doubles after each failure.
    static let initialProbeBackoff = Duration.milliseconds(100)
    /// The longest wait between probe attempts.
    static let maximumProbeBackoff = Duration.seconds(5)

    let scheduler: any LoopScheduler
    let settle: Duration
    let probe: Probe?
    unowned let delegate: any ResyncDelegate

    private(set) var phase = Phase.idle
    /// When the current resync started (nil while idle).
    private(set) var startedAt: LoopInstant?
    private var lastByteAt = LoopInstant(nanoseconds: 0)
    private var usesProbe = false
    private var done: (() -> Void)?
    private var timer: LoopTimer?
    /// Probes sent and matching answers seen during this resync.
    private var probesSent = 0
    private var probesAnswered = 0
    private var backoff = Resync.initialProbeBackoff
    /// The awaited late answer completed (the next phase starts from the timer, not from inside
    /// the frame callback).
    private var lateAnswerCame = false

    init(scheduler: any LoopScheduler, settle: Duration, probe: Probe?, delegate: any ResyncDelegate) {
        self.scheduler = scheduler
        self.settle = settle
        self.probe = probe
        self.delegate = delegate
    }

    var isActive: Bool { phase != .idle }

    /// When the current phase ends at the latest, if it has a fixed end (the settle phase moves
    /// its end with every byte).
    var phaseEnds: LoopInstant? {
        switch phase {
        case .idle: nil
        case .awaitingLateAnswer(let until), .probing(_, let until), .probeBackoff(_, let until): until
        case .settling(let since): min(max(since, lastByteAt) + settle, since + settle * 4)
        }
    }

    /// Starts a resync: the late answer is awaited until `lateAnswerUntil` (if later than now),
    /// then the probe is sent (if `probe` and one is configured), then the line settles. Calls
    /// `done` once, when it ends or is cancelled. A resync still running is ended first (its
    /// `done` is called), so that nobody waiting on it is stranded.
    func start(lateAnswerUntil: LoopInstant?, probe useProbe: Bool, done: @escaping () -> Void) {
        scheduler.assertInLoop()
        cancel()
        let now = scheduler.now
        self.done = done
        startedAt = now
        lastByteAt = now
        usesProbe = useProbe && probe != nil
        probesSent = 0
        probesAnswered = 0
        backoff = Resync.initialProbeBackoff
        if let until = lateAnswerUntil, until > now {
            enter(.awaitingLateAnswer(until: until))
            arm(at: until)
        } else {
            afterLateAnswer()
        }
    }

    /// Bytes arrived (before framing). Device loop.
    func noteBytes() {
        lastByteAt = scheduler.now
    }

    /// A complete frame arrived during the resync: it is discarded. Device loop.
    func discard(frame: [UInt8]) {
        guard isActive else { return }
        delegate.resyncDiscardedFrame()
        switch phase {
        case .awaitingLateAnswer:
            // Not from inside the frame callback: the next phase may write the probe.
            guard delegate.resyncFrameCompletesLateAnswer(frame) else { return }
            lateAnswerCame = true
            arm(at: scheduler.now)
        case .probing, .probeBackoff:
            guard let probe, probe.expect.matches(String(decoding: frame, as: UTF8.self)) else { return }
            // A match before any probe went out (or more matches than probes) proves nothing.
            probesAnswered = min(probesAnswered + 1, probesSent)
            if isInStep { arm(at: scheduler.now) }
        case .idle, .settling:
            break
        }
    }

    /// Ends the resync at once (the device went away, the accessory shuts down): calls `done`.
    func cancel() {
        scheduler.assertInLoop()
        guard isActive else { return }
        finish()
    }

    // MARK: - Phases

    private func afterLateAnswer() {
        if usesProbe {
            sendProbe(attempt: 1)
        } else {
            startSettling()
        }
    }

    private func sendProbe(attempt: Int) {
        guard let probe else { return startSettling() }
        let now = scheduler.now
        enter(.probing(attempt: attempt, until: now + probe.timeout))
        probesSent += 1
        guard delegate.resyncSendProbe() else {
            probesSent -= 1
            return probeFailed(attempt: attempt, reason: "the probe could not be sent")
        }
        arm(at: now + probe.timeout)
    }

    /// Every probe sent has been answered (and at least one was sent).
    private var isInStep: Bool { probesSent > 0 && probesAnswered >= probesSent }

    private func probeFailed(attempt: Int, reason: String) {
        delegate.resyncProbeFailed(attempt: attempt, reason: reason)
        let until = scheduler.now + backoff
        backoff = min(Resync.maximumProbeBackoff, backoff * 2)
        enter(.probeBackoff(attempt: attempt + 1, until: until))
        arm(at: until)
    }

    private func startSettling() {
        guard settle > .zero else { return finish() }
        let now = scheduler.now
        lastByteAt = now
        enter(.settling(since: now))
        arm(at: now + settle)
    }

    private func timerFired() {
        timer = nil
        let now = scheduler.now
        switch phase {
        case .idle:
            return
        case .awaitingLateAnswer(let until):
            if lateAnswerCame || now >= until {
                lateAnswerCame = false
                afterLateAnswer()
            } else {
                arm(at: until)
            }
        case .probing(let attempt, let until):
            if isInStep {
                finish()
            } else if now >= until {
                probeFailed(attempt: attempt, reason: "no answer matching the probe's expect in time")
            } else {
                arm(at: until)
            }
        case .probeBackoff(let attempt, let until):
            if isInStep {
                finish()
            } else if now >= until {
                sendProbe(attempt: attempt)
            } else {
                arm(at: until)
            }
        case .settling(let since):
            let quietFor = now - max(lastByteAt, since)
            if quietFor >= settle || now - since >= settle * 4 {
                finish()
            } else {
                arm(at: min(now + (settle - quietFor), since + settle * 4))
            }
        }
    }

    /// `done` first (the queue goes on), then the delegate hears of the end.
    private func finish() {
        cancelTimer()
        lateAnswerCame = false
        startedAt = nil
        let old = phase
        phase = .idle
        let done = self.done
        self.done = nil
        done?()
        if old != .idle { delegate.resyncPhaseChanged(self, from: old) }
    }

    private func enter(_ new: Phase) {
        let old = phase
        phase = new
        if old != new { delegate.resyncPhaseChanged(self, from: old) }
    }

    private func arm(at deadline: LoopInstant) {
        cancelTimer()
        timer = scheduler.scheduleTimer(at: deadline, repeating: nil, modes: [.common]) { [weak self] in
            self?.timerFired()
        }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
    }
}
