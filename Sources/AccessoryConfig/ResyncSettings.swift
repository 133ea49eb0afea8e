/// `resync:` — what the accessory does after a request ended without its answer (timed out,
/// cancelled, its client gone) before the next request may start, and after a reopen that
/// followed a removal.
///
/// In order: wait for the owed answer for the late window (discarding it when it completes),
/// then send the probe if one is configured (discarding everything until its expected answer),
/// then discard bytes until the line has been quiet for `settleMs`.
///
/// Threading: a value. Any thread.
public struct ResyncSettings: Sendable, Equatable {
    /// What a reopen after a removal does before the accessory is ready.
    ///
    /// Threading: a value. Any thread.
    public enum AfterReopen: String, Sendable, CaseIterable {
        /// Settle only: a device that was unplugged has been reset and owes nothing (USB).
        case settle
        /// If the removal interrupted a `transact`, discard its answer until that request's old
        /// deadline first: for transports where a removal is not a reset (an RFCOMM link that
        /// dropped and came back, a udev remove that was not an unplug).
        case lateAnswer = "late_answer"
    }

    /// `probe:` — a request whose answer proves the line is back in step.
    ///
    /// Threading: a value. Any thread.
    public struct Probe: Sendable, Equatable {
        /// Sent as one frame (the accessory's framing and terminator apply).
        public var send: String
        /// A Swift `Regex`; the first frame that matches it is the probe's answer.
        public var expect: String
        public var timeoutMs: Int

        public init(send: String, expect: String, timeoutMs: Int = 500) {
            self.send = send
            self.expect = expect
            self.timeoutMs = timeoutMs
        }
    }

    /// Quiet time required before the next request.
    public var settleMs: Int
    /// The longest late window: after a `transact` ended without its answer, that answer is
    /// awaited for its own timeout (at least 1 s), but never longer than this. 0: no late
    /// window (the probe, or the settle time alone, must then keep the line in step).
    public var lateMs: Int
    public var probe: Probe?
    public var afterReopen: AfterReopen

    public init(settleMs: Int = 50, lateMs: Int = 10_000, probe: Probe? = nil, afterReopen: AfterReopen = .settle) {
        self.settleMs = settleMs
        self.lateMs = lateMs
        self.probe = probe
        self.afterReopen = afterReopen
    }

    /// How long the answer of a `transact` with this timeout is awaited after it gave up:
    /// its timeout, at least 1 s, at most `lateMs`. Any thread.
    public func lateWindowMs(requestTimeoutMs: Int) -> Int {
        min(max(requestTimeoutMs, 1_000), lateMs)
    }
}
