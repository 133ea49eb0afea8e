import IOLoop
import SystemCalls

/// Drives a ``Framer`` from a loop: feeds it received bytes stamped with the loop's clock, and
/// keeps one loop timer armed for the framer's ``Framer/idleDeadline`` (for idle-gap frames and
/// idle resync), so that frames ending in silence are delivered on time.
///
/// The timer is re-armed only when the deadline moves earlier; a timer that fires early for a
/// deadline that has since moved later just re-arms, so a steady stream costs no timer churn.
/// Works on any ``LoopScheduler`` (the real ``IOLoop``, or a virtual-time loop in tests).
///
/// Loop thread only.
public final class FrameReader: @unchecked Sendable {  // @unchecked: all mutable state is loop-confined.
    /// The framer, with whatever partial frame it holds.
    public private(set) var framer: any Framer
    /// Called with each complete frame. Loop thread only.
    public var onFrame: (([UInt8]) -> Void)?
    /// Called when bytes were skipped (oversize, bad encoding, cut short). Loop thread only.
    public var onDropped: ((FramingError) -> Void)?

    private let scheduler: any LoopScheduler
    /// ``Framer/actsOnSilence`` of the framer: without it there is never a timer to arm.
    private let watchesSilence: Bool
    /// The events of one read, kept between reads for its storage.
    private var reusableEvents: [FramerEvent] = []
    private var timer: LoopTimer?
    private var timerDeadline: LoopInstant?

    public init(framer: any Framer, scheduler: any LoopScheduler) {
        self.framer = framer
        self.scheduler = scheduler
        self.watchesSilence = framer.actsOnSilence
    }

    deinit {
        timer?.cancel()
    }

    /// Feeds received bytes. Loop thread only.
    public func receive(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { receive($0) }
    }

    /// Feeds received bytes lent for the call (see ``StreamChannel/onBytes``). Loop thread only.
    public func receive(_ bytes: UnsafeRawBufferPointer) {
        // Taken out while delivering: a frame's handler may feed this reader again.
        var events = reusableEvents
        reusableEvents = []
        // The clock only for a framer that acts on silence: the others never look at it.
        framer.ingest(bytes, at: watchesSilence ? scheduler.now : LoopInstant(nanoseconds: 0), into: &events)
        deliver(events)
        events.emptyKeepingCapacity()
        reusableEvents = events
        armTimer()
    }

    /// Feeds this reader from `channel` (replaces the channel's `onBytes`). Loop thread only.
    public func attach(to channel: StreamChannel) {
        channel.onBytes = { [weak self] bytes in self?.receive(bytes) }
    }

    /// Wraps a payload for sending with this reader's framing. Loop thread only.
    public func encode(_ payload: [UInt8]) throws(FramingError) -> [UInt8] {
        // In place, as `idleDeadline`: calling through the stored existential copied the framer.
        func encode<F: Framer>(_ f: inout F) throws(FramingError) -> [UInt8] { try f.encode(payload) }
        return try encode(&framer)
    }

    /// ``encode(_:)`` appended to `output`, a buffer the caller keeps. Loop thread only.
    public func encode(_ payload: [UInt8], appendingTo output: inout [UInt8]) throws(FramingError) {
        func encode<F: Framer>(_ f: inout F) throws(FramingError) { try f.encode(payload, appendingTo: &output) }
        try encode(&framer)
    }

    /// Drops any partial frame and the timer (after a resync or a reopen). Loop thread only.
    public func reset() {
        framer.reset()
        cancelTimer()
    }

    private func deliver(_ events: [FramerEvent]) {
        for event in events {
            switch event {
            case .frame(let payload): onFrame?(payload)
            case .dropped(let error): onDropped?(error)
            }
        }
    }

    /// The framer's deadline, read in place: reading a property of the existential copies the
    /// whole framer (its buffers retained and released) on every read.
    private var idleDeadline: LoopInstant? {
        func read<F: Framer>(_ f: inout F) -> LoopInstant? { f.idleDeadline }
        return read(&framer)
    }

    private func armTimer() {
        guard watchesSilence else { return }
        guard let deadline = idleDeadline else { return cancelTimer() }
        if let armed = timerDeadline, timer?.isValid == true, armed <= deadline { return }
        cancelTimer()
        timerDeadline = deadline
        timer = scheduler.scheduleTimer(at: deadline, repeating: nil, modes: [.common]) { [weak self] in
            self?.timerFired()
        }
    }

    private func timerFired() {
        timer = nil
        timerDeadline = nil
        let events = framer.flush(at: scheduler.now)
        deliver(events)
        armTimer()
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
        timerDeadline = nil
    }
}
