import IOLoop
import Synchronization
import SystemCalls

/// One simulated serial accessory on a pseudo-terminal.
///
/// It opens a pty pair, puts it in raw mode, keeps a descriptor of the slave open itself (so the
/// master never sees a hang-up when a client closes and reopens, as with a real port, and the
/// slave's settings persist), publishes the slave path (and optionally a symbolic link to it),
/// and answers on the master side according to its ``Personality``, with the faults of its
/// ``FaultSwitches``. The master is non-blocking and driven by an ``IOLoop`` source; an idle
/// accessory has no timer and costs no CPU (except `nmea` and `at-modem` with unsolicited lines,
/// which wake once per interval).
///
/// Lifetime: it lives until ``stop()`` (the loop's source and timers hold it). Call ``stop()``
/// before shutting the loop down, so the link is removed.
///
/// Threading: ``start(_:on:onEvent:)``, ``stop()``, ``hangUp(reappearAfter:)`` and ``status`` are
/// safe from any thread (the last three hop onto the loop; off the loop they take effect when the
/// loop runs them). All I/O, timers and the `onEvent` callback run on the loop's thread.
package final class SimulatedAccessory: @unchecked Sendable {
    // @unchecked: `statusBox` is in a Locked (pthread mutex); `pendingDevice` and `pendingLines` are written before the perform that
    // reads it (the perform queue's lock orders them); everything else is touched only on `loop`.

    /// The configuration it was started with.
    package let configuration: SimulatorConfiguration
    /// The loop that drives it.
    package let loop: IOLoop

    let onEvent: (@Sendable (SimulatorEvent) -> Void)?
    let statusBox: Locked<SimulatorStatus>

    // MARK: loop-confined state

    /// A pty opened off the loop by `start`, waiting for the loop to attach it.
    var pendingDevice: OpenedPty?
    /// The master's source (it owns the master descriptor); nil while hung up.
    var source: FDSource?
    /// The simulator's own descriptor of the slave, and its number.
    var slaveHold: OwnedFD?
    var slaveHoldFD: CInt = -1
    var slavePath: String?
    var responder: any Responder
    var rng: SplitMix64
    var replyCount = 0
    var replyQueue: [QueuedReply] = []
    var replyTimer: LoopTimer?
    var tickTimer: LoopTimer?
    /// Fires at the responder's ``Responder/nextDue``, and the instant it is armed for.
    var dueTimer: LoopTimer?
    var dueTimerAt: LoopInstant?
    var reappearTimer: LoopTimer?
    var outbound = OutboundBuffer()
    var isStopped = false
    /// The line socket's source (`SimulatedAccessory+Lines.swift`).
    var linesSource: FDSource?
    /// The line socket bound by `start`, waiting for the loop (as `pendingDevice`).
    var pendingLines: OwnedFD?

    /// Output beyond this stops reading input until it drains below `resumeReadingBelow`.
    static let pauseReadingAbove = 256 << 10
    static let resumeReadingBelow = 64 << 10
    /// Periodic output is skipped (an overrun, as on a real line nobody reads) when the slave
    /// already holds this many unread bytes, or this much output is still queued.
    static let periodicBacklogLimit = 2048

    private init(
        configuration: SimulatorConfiguration,
        loop: IOLoop,
        onEvent: (@Sendable (SimulatorEvent) -> Void)?
    ) {
        self.configuration = configuration
        self.loop = loop
        self.onEvent = onEvent
        self.responder = makeResponder(for: configuration)
        self.rng = configuration.seed.map(SplitMix64.init(seed:)) ?? SplitMix64()
        self.statusBox = Locked(
            SimulatorStatus(slavePath: nil, appearances: 0, replies: 0, totalReplies: 0, isStopped: false)
        )
    }

    /// Opens the pty, makes it raw, publishes the slave (and the link), and starts answering on
    /// `loop`. The slave can be opened as soon as this returns: bytes written before the loop
    /// attaches the master simply wait in the pty. `onEvent` is called on the loop thread for
    /// each appearance (including this first one) and hang-up.
    ///
    /// Any thread.
    package static func start(
        _ configuration: SimulatorConfiguration,
        on loop: IOLoop,
        onEvent: (@Sendable (SimulatorEvent) -> Void)? = nil
    ) throws(SimulatorError) -> SimulatedAccessory {
        try configuration.validate()
        let accessory = SimulatedAccessory(configuration: configuration, loop: loop, onEvent: onEvent)
        if let linesPath = configuration.linesSocketPath {
            accessory.pendingLines = .some(try bindLinesSocket(at: linesPath))
        }
        let device = try accessory.openDevice()
        let path = device.slavePath
        accessory.statusBox.withLock {
            $0.slavePath = path
            $0.appearances = 1
        }
        if loop.inLoop {
            if let l = accessory.pendingLines.take() { accessory.serveLines(l) }
            accessory.attach(device)
            return accessory
        }
        accessory.pendingDevice = .some(device)
        let queued = loop.perform {
            if let l = accessory.pendingLines.take() { accessory.serveLines(l) }
            if let d = accessory.pendingDevice.take() { accessory.attach(d) }
        }
        if !queued {
            _ = accessory.pendingDevice.take()
            _ = accessory.pendingLines.take()
            if let linesPath = configuration.linesSocketPath { try? FileIO.unlink(linesPath) }
            if let link = configuration.linkPath { DeviceLink.remove(link, ifPointingAt: path) }
            throw .loopShutDown
        }
        return accessory
    }

    /// The current state. Any thread.
    package var status: SimulatorStatus { statusBox.withLock { $0 } }

    /// The current slave path; nil while hung up or stopped. Any thread.
    package var currentSlavePath: String? { status.slavePath }

    /// Closes the pty (clients see a hang-up), cancels timers and removes the link. Idempotent.
    /// Any thread: on the loop it acts at once, elsewhere when the loop runs it (a loop's
    /// `shutdown()` runs it before closing).
    package func stop() {
        if loop.inLoop {
            stopOnLoop()
        } else if !loop.perform({ self.stopOnLoop() }) {
            // The loop has shut down (closing the master); only the link is left to remove.
            let path = statusBox.withLock { s -> String? in
                defer {
                    s.slavePath = nil
                    s.isStopped = true
                }
                return s.slavePath
            }
            if let path { unpublish(path) }
            if let linesPath = configuration.linesSocketPath { try? FileIO.unlink(linesPath) }
        }
    }

    /// Hangs up now, as the `hangupAfter` fault does, and reappears after `reappearAfter` if
    /// given. Ignored while already hung up or stopped. Any thread (acts on the loop).
    package func hangUp(reappearAfter: Duration? = nil) {
        loop.execute { self.hangUpOnLoop(reappearAfter: reappearAfter) }
    }

    func stopOnLoop() {
        guard !isStopped else { return }
        isStopped = true
        reappearTimer?.cancel()
        reappearTimer = nil
        if let d = pendingDevice.take() { unpublish(d.slavePath) }
        _ = pendingLines.take()
        stopServingLines()
        detach()
        statusBox.withLock {
            $0.slavePath = nil
            $0.isStopped = true
        }
    }

    func emit(_ event: SimulatorEvent) {
        onEvent?(event)
    }
}
