import AccessoryConfig
import ControlProtocol
import IOLoop
import Operations
import Transports

/// One configured accessory: its state machine (`absent → opening → ready → failed/absent`,
/// `disabled`), its transport and framer, its single-file request queue, its lock, and its
/// counters.
///
/// Frames from the device go to the executing request if it claims them (and they are not
/// `unsolicited`), otherwise to subscribers as `device.data`. After a request that timed out or
/// was cancelled mid-transaction, the queue resyncs (``Resync``): its answer is awaited and
/// discarded, the probe sent if configured, and the line left to settle, so that a late reply is
/// never handed to the next request.
///
/// Device loop only.
public final class Accessory: @unchecked Sendable {  // @unchecked: all mutable state is device-loop-confined.
    public let name: String
    public let settings: AccessorySettings
    public let access: AccessControl
    let loop: any LoopScheduler
    /// Opens the device (``SystemDeviceOpener`` in the daemon, a fake in virtual-time tests).
    let opener: any DeviceOpener
    let queue: DeviceQueue
    /// What timers and other deferred work hold instead of `[weak self]` (see ``AccessoryLink``).
    let link: AccessoryLink
    let limits: Limits
    let untilPattern: FramePattern?
    let unsolicitedPatterns: [FramePattern]

    /// Where the accessory is opened: the configured path for path-like sources (`path`,
    /// `simulate`, `match.by_id`); for a udev identity match, the node of the matching device
    /// while one is present.
    public internal(set) var devicePath: String?
    /// The path the accessory was configured with (a reload compares it).
    let configuredPath: String?

    /// Whether the device is open, with what, and what clients are told (``AccessoryLinkState``).
    /// Changed only through ``replaceLink(with:)``, which checks the move.
    private(set) var linkState: AccessoryLinkState = .closed(.absent, reason: "not opened yet", removal: nil)
    /// What clients are told (before a resync is taken into account: ``reportedState``).
    public var state: DeviceState { linkState.deviceState }
    public var stateReason: String { linkState.reason }
    /// The open device's framer, while open.
    var reader: FrameReader? { linkState.device?.reader }
    /// The tty, while open (nil for an RFCOMM link).
    var port: SerialPort? { linkState.device?.port }
    var isShutDown: Bool { linkState.kind == .shutDown }
    /// Counted by the accessory alone: its requests report what they sent and how they ended
    /// (``Accessory+RequestPath``).
    var counters = AccessoryCounters()
    /// The frame being sent (``sendFrame(_:to:for:)``), kept between frames for its storage.
    var frameBuffer: [UInt8] = []

    let reopen: ReopenSchedule
    /// The executing request that receives frames, if any. Set and cleared here alone, as its
    /// requests start waiting and end (``claim(for:until:)``, ``requestEnded(_:)``).
    private(set) var claimant: RequestOperation?
    /// Fires at or before the claimant's deadline (``watchResponseDeadline(_:)``).
    let responseDeadline: ResponseDeadline
    /// The `attach`ed client, if any (``RawSession``).
    var rawSession: RawSession?
    /// Discards what comes between a request that gave up on its answer and the next request.
    let resync: Resync
    /// What the running resync follows ("a transact that timed out", "the reopen"), for status.
    var resyncCause = ""
    /// Whether clients were told that the running resync started (they are told when it ends).
    var resyncAnnounced = false
    /// The lock: who holds it, until when, who waits for it.
    let lease: Lease
    /// What becomes of arriving requests; those parked behind another client's lock.
    let admission: Admission<RequestOperation>
    /// Reads the modem lines while someone subscribes to `device.lines` (``pollLines(_:changed:)``).
    let linePoll: LinePoll

    /// Told about every state change. Device loop.
    var onStateChange: ((Accessory) -> Void)?
    /// Told about every frame no request claimed. Device loop.
    var onUnsolicited: ((Accessory, [UInt8]) -> Void)?
    /// Told just before a request takes a frame: notifications of earlier frames go out first,
    /// so that a client sees frames in the order they came. Device loop.
    var onClaimingFrame: ((Accessory) -> Void)?
    /// Told just before a client's connection turns raw (`attach`): what is still owed to it as
    /// notifications goes out now, and it gets none after. Device loop.
    var onRawSessionStarting: ((Accessory, any RequestOrigin) -> Void)?
    /// Told when the accessory may have become idle (a request finished, a resync ended, the
    /// lock was released): a reload waiting for it can apply. Device loop.
    var onMaybeIdle: ((Accessory) -> Void)?
    /// Told when one of its requests has been answered (the registry forgets it). Set once, not
    /// per request: a closure per request was an allocation per request. Device loop.
    var onRequestCompleted: ((RequestOperation) -> Void)?
    /// The registry's list of clients subscribed to this accessory's data, nil until it is
    /// worked out again after the subscriptions changed. Device loop.
    var dataSubscribers: [any RequestOrigin]?
    /// Where traffic goes while someone traces it (a trace file, `device.traffic` subscribers),
    /// else nil: the byte paths test only this. Device loop.
    var tap: TrafficTap?
    /// The tap, kept while idle so that its buffers are reused. Device loop.
    var trafficTap: TrafficTap?
    /// While a traced read is framed (``receiveTraced(_:reader:tap:)``): which request took each
    /// frame it completed; nil otherwise. Device loop.
    var frameOutcome: FrameOutcome?
    /// Log lines. Device loop.
    var log: (LogLevel, String) -> Void = { _, _ in }
    /// Refused attach-session tokens, logged at most once a second (a client can send them at will).
    var sessionRefusalLog = LogThrottle(interval: .seconds(1))

    init(
        settings: AccessorySettings,
        devicePath: String?,
        loop: any LoopScheduler,
        opener: any DeviceOpener,
        limits: Limits
    ) {
        self.name = settings.name
        self.opener = opener
        self.settings = settings
        self.access = AccessControl(settings.access)
        self.loop = loop
        self.limits = limits
        self.devicePath = devicePath
        self.configuredPath = devicePath
        self.queue = DeviceQueue(loop: loop, name: settings.name)
        self.reopen = ReopenSchedule(
            scheduler: loop,
            initialMs: settings.reconnect.initialMs,
            maximumMs: settings.reconnect.maxMs
        )
        self.linePoll = LinePoll(scheduler: loop, interval: Self.linePollInterval)
        // The configuration loader already compiled these once; a failure here would be a bug.
        self.untilPattern = settings.response.until.flatMap { FramePattern($0) }
        self.unsolicitedPatterns = settings.unsolicited.compactMap { FramePattern($0) }
        let link = AccessoryLink()
        self.link = link
        // Their callbacks go through the link, as timers' do: they hold no accessory.
        let lease = Lease(scheduler: loop, device: settings.name)
        lease.onExpired = { [link] clientID in link.accessory?.leaseExpired(clientID: clientID) }
        lease.onReleased = { [link] in link.accessory?.lockReleased() }
        self.lease = lease
        let admission = Admission<RequestOperation>(scheduler: loop, queueDepth: limits.queueDepth)
        admission.onParkExpired = { [link] op in link.accessory?.parkedWaitExpired(op) }
        self.admission = admission
        let deadline = ResponseDeadline(scheduler: loop)
        deadline.currentDue = { [link] in link.accessory?.claimant?.deadline }
        deadline.onPassed = { [link] in link.accessory?.claimant?.deadlinePassed() }
        self.responseDeadline = deadline
        self.resync = Resync(
            scheduler: loop,
            settle: .milliseconds(settings.resync.settleMs),
            probe: settings.resync.probe.flatMap { p in
                FramePattern(p.expect).map { Resync.Probe(expect: $0, timeout: .milliseconds(p.timeoutMs)) }
            },
            delegate: link
        )
        queue.resync = { [unowned self] previous, done in startResync(after: previous, done: done) }
        link.accessory = self
        queue.delegate = link
    }

    deinit {
        link.accessory = nil
    }

    /// Nothing queued or executing, no resync, no lock: a reload may replace it now. Device loop.
    var isIdle: Bool {
        queue.operationCount == 0 && claimant == nil && !resync.isActive && lease.holder == nil
    }

    var channel: (any DeviceChannel)? { linkState.device?.channel }

    /// "serial" or "rfcomm", for `devices.list`.
    public var transportName: String {
        if case .rfcomm = settings.source { return "rfcomm" }
        return "serial"
    }

    /// Requests queued or executing. Device loop.
    public var queueDepth: Int { queue.operationCount }

    /// Moves the link and says so (``announceState()``) if what clients see changed.
    func move(to next: AccessoryLinkState) {
        if replaceLink(with: next) { announceState() }
    }

    /// Moves the link without saying so yet; returns whether what clients see changed (the
    /// caller then calls ``announceState()``, once the work that belongs to the move is done:
    /// a removal fails the queue first, so that clients hear of their requests before the state).
    /// A move the transition table does not allow is a programmer error: it traps in debug builds
    /// and is refused in release.
    @discardableResult
    func replaceLink(with next: AccessoryLinkState) -> Bool {
        guard linkState.canMove(to: next.kind) else {
            assertionFailure("\(name): illegal link move: \(linkState.kind) → \(next.kind)")
            return false
        }
        let (oldState, oldReason) = (state, stateReason)
        linkState = next
        return state != oldState || stateReason != oldReason
    }

    /// Says what the state is now: the log, the state's listeners, and a raw client, which is
    /// disconnected when the accessory is no longer ready.
    func announceState() {
        let (new, reason) = (state, stateReason)
        // A raw client cannot be told in-band: it is disconnected, with the reason in the log.
        if new != .ready { endRawSession(disconnecting: "\(name) is \(new.rawValue): \(reason)") }
        log(new == .ready ? .info : .notice, "\(name): \(new.rawValue)\(reason.isEmpty ? "" : " (\(reason))")")
        onStateChange?(self)
    }

    // MARK: - Frames

    /// Called by the frame reader for each complete inbound frame.
    func didReceive(frame: [UInt8]) {
        counters.framesIn += 1
        let taker = route(frame)
        if frameOutcome != nil { frameOutcome?.takers.append(taker) }
    }

    /// Hands a frame to the request that takes it (returned), or to subscribers as unsolicited.
    private func route(_ frame: [UInt8]) -> RequestOperation? {
        // Never a reply, so safe to deliver even while a resync discards everything else.
        if !unsolicitedPatterns.isEmpty, matchesAny(unsolicitedPatterns, frame) {
            deliverUnsolicited(frame)
            return nil
        }
        if resync.isActive {  // A late answer, a probe's answer, noise: discarded.
            resync.discard(frame: frame)
            return nil
        }
        if let c = claimant {
            onClaimingFrame?(self)
            if c.offer(frame: frame) { return c }
        }
        deliverUnsolicited(frame)
        return nil
    }

    private func deliverUnsolicited(_ frame: [UInt8]) {
        counters.unsolicitedFrames += 1
        onUnsolicited?(self, frame)
    }

    func frameCompletes(_ frame: [UInt8]) -> Bool {
        guard let untilPattern else { return true }
        return matchesAny([untilPattern], frame)
    }

    private func matchesAny(_ patterns: [FramePattern], _ frame: [UInt8]) -> Bool {
        let text = String(decoding: frame, as: UTF8.self)
        return patterns.contains { $0.matches(text) }
    }

    // MARK: - Status

    /// `device.status`, with the accessory's `views`. Device loop.
    func status(views: [DeviceStatusResult.View]) -> DeviceStatusResult {
        loop.assertInLoop()
        return DeviceStatusResult(
            name: name,
            state: reportedState,
            reason: reportedReason,
            resync: resyncStatus(),
            transport: transportName,
            path: devicePath,
            identity: identityStatus(),
            settings: settingsStatus(),
            queueDepth: Int64(queueDepth),
            locked: lease.holder != nil,
            // Null where the driver gives none (a pty, an RFCOMM link) or the accessory is not open.
            lines: currentLines().map(Self.lineState),
            counters: counters.status,
            lastError: counters.lastError,
            trace: traceStatus(),
            views: views
        )
    }

    private func identityStatus() -> DeviceStatusResult.Identity {
        switch settings.source {
        case .path(let p): .path(p)
        case .simulate(let s): .simulated(s.personality.rawValue)
        case .rfcomm(let t): .rfcomm(address: t.address, channel: Int64(t.channel))
        case .match(let m): .match(vendorID: m.vendorID, productID: m.productID, serial: m.serial, byID: m.byID)
        }
    }

    private func settingsStatus() -> DeviceStatusResult.Settings {
        let s = settings.serial
        return DeviceStatusResult.Settings(
            baud: Int64(s.baud),
            dataBits: Int64(s.dataBits),
            parity: s.parity.rawValue,
            stopBits: Int64(s.stopBits),
            flow: s.flow.rawValue,
            framing: settings.framing.format.typeName,
            until: settings.response.until,
            timeoutMs: Int64(responseTimeoutMs(requested: nil))
        )
    }

    func responseTimeoutMs(requested: Int?) -> Int {
        requested ?? settings.response.timeoutMs ?? limits.defaultTimeoutMs
    }
}

extension Accessory {
    /// `request` has sent its frame (or, a `read`, starts listening): the frames that come go to
    /// it until `due`, when it gives up. Device loop.
    func claim(for request: RequestOperation, until due: LoopInstant) {
        claimant = request
        watchResponseDeadline(due)
    }

    /// `request` ended (answered, failed, cancelled): it takes no more frames, and a wait in the
    /// queue on its behalf has nothing left to wait for. Device loop.
    func requestEnded(_ request: RequestOperation) {
        if claimant === request { claimant = nil }
        requestFinished(request)
    }

    /// The queue finished an operation (through ``AccessoryLink``, its delegate). Device loop.
    func queueDidFinish(_ operation: LoopOperation) {
        loop.assertInLoop()
        onMaybeIdle?(self)
    }
}
