import AccessoryConfig
import ControlProtocol
import Hotplug
import IOLoop
import Operations
import TrafficTrace
import Transports

/// The daemon's accessories, their subscribers and the requests in flight, on the device loop.
///
/// The control server calls ``handle(_:from:)`` and ``clientLeft(_:)`` from its own loop; both hop
/// to the device loop with one perform. Everything else is device loop only.
public final class AccessoryRegistry: @unchecked Sendable {  // @unchecked: mutable state is device-loop-confined.
    struct Subscription {
        let origin: any RequestOrigin
        /// nil = every accessory the client may use.
        var devices: Set<String>?
        var events: Set<EventKind>
    }

    public let loop: IOLoop
    var limits: Limits
    /// In configuration order.
    public internal(set) var accessories: [Accessory] = [] {
        didSet { updateLinePolling() }  // A reload's new accessory may have `lines` subscribers.
    }
    var byName: [String: Accessory] = [:] {
        didSet { lastLookup = nil }
    }
    /// The accessory found by the last ``lookUp(_:)``: clients send request after request
    /// to one accessory, and comparing its name costs less than hashing it. Any change to
    /// `byName` forgets it.
    private var lastLookup: Accessory?
    var subscriptions = SubscriptionTable() {
        didSet {
            for a in accessories { a.dataSubscribers = nil }
            trafficSubscriptionsChanged()
            updateLinePolling()
        }
    }
    /// Whether some accessory had `device.traffic` subscribers at the last change of the
    /// subscriptions (if not, and none asks for traffic now, there is nothing to redo).
    var trafficWatched = false
    /// Whether some accessory's modem lines were polled for `lines` subscribers at the last
    /// change of the subscriptions or the accessories.
    private var linesWatched = false
    /// `device.data` lines not yet sent, per subscribed client: sent together once the frames of
    /// the current read are handed out, one write per read instead of one per frame.
    var dataBatches: [UInt64: (origin: any RequestOrigin, lines: [UInt8])] = [:]
    /// The `device.data` line being encoded, kept between frames so that its storage is reused.
    private var dataLine: [UInt8] = []
    /// Requests that have not answered yet, by client and request id.
    var inflight = InflightRequests()
    /// The connected clients, by id (``clientJoined(_:)``, ``clientLeft(_:)``): what
    /// `clients.list` shows and `client.disconnect` finds.
    var clients: [UInt64: any RequestOrigin] = [:]
    /// The present udev devices matching each identity-matched accessory, by device path.
    var udevMatches: [String: [String: DeviceIdentity]] = [:]
    /// Reload changes waiting for a busy accessory to become idle, by accessory name.
    var pendingChanges: [String: PendingChange] = [:]
    /// The daemon-wide part of `daemon.status` (the version, the process's and the control
    /// server's figures), which the registry completes with the accessories'. Any thread.
    package var daemonStatus: @Sendable () -> DaemonStatusResult = { DaemonStatusResult() }
    /// Told after every accessory state change (for systemd's STATUS=). Device loop.
    public var onStateChange: ((Accessory) -> Void)?
    /// How `rfcomm` accessories connect: the kernel's Bluetooth sockets unless a test gives a
    /// stand-in (a socketpair or Unix-socket driver), so that the RFCOMM lifecycle runs through
    /// the registry on hosts without a Bluetooth stack.
    /// Opens the accessories' devices and keeps them in the descriptor store. Device loop.
    let opener: SystemDeviceOpener
    let log: (LogLevel, String) -> Void
    /// The accessories' pty views (``ViewSet``), made by ``start()``.
    lazy var views = ViewSet(registry: self)
    /// The accessories' network listeners (``ListenerSet``), made by ``start()``.
    lazy var listeners = ListenerSet(registry: self)

    /// Makes the registry; call ``start()`` on the device loop to open the accessories.
    /// `devicePaths` gives the path to open for accessories whose source is not a plain path (the
    /// simulator's link, a by-id link). `rfcommDriver` makes and connects the sockets of
    /// `rfcomm` accessories (the daemon keeps the default, ``RFCOMMSocketDriver/bluetooth``).
    /// `descriptorStore` keeps open devices across a restart (systemd's store; nil without
    /// systemd). Any thread.
    public init(
        loop: IOLoop,
        configuration: Configuration,
        devicePaths: [String: String],
        rfcommDriver: RFCOMMSocketDriver = .bluetooth,
        descriptorStore: (any DeviceDescriptorStore)? = nil,
        log: @escaping (LogLevel, String) -> Void
    ) {
        self.loop = loop
        self.limits = configuration.limits
        self.opener = SystemDeviceOpener(loop: loop, rfcommDriver: rfcommDriver, store: descriptorStore)
        self.log = log
        for settings in configuration.accessories {
            let a = makeAccessory(settings, devicePaths: devicePaths, limits: configuration.limits)
            accessories.append(a)
            byName[a.name] = a
        }
    }

    /// Where an accessory is opened, for path-like sources.
    static func devicePath(for settings: AccessorySettings, devicePaths: [String: String]) -> String? {
        switch settings.source {
        case .path(let p): p
        case .match(let m): devicePaths[settings.name] ?? m.byID.map { "/dev/serial/by-id/\($0)" }
        case .simulate, .rfcomm: devicePaths[settings.name]
        }
    }

    func makeAccessory(_ settings: AccessorySettings, devicePaths: [String: String], limits: Limits) -> Accessory {
        Accessory(
            settings: settings,
            devicePath: Self.devicePath(for: settings, devicePaths: devicePaths),
            loop: loop,
            opener: opener,
            limits: limits
        )
    }

    /// Opens every accessory. Device loop.
    public func start() {
        loop.preconditionInLoop()
        for a in accessories {
            wire(a)
            a.open()
        }
        views.apply(accessories.map(\.settings))
        listeners.apply(accessories.map(\.settings))
    }

    /// Connects an accessory's callbacks to the registry. Device loop.
    func wire(_ a: Accessory) {
        a.log = log
        a.onStateChange = { [unowned self] a in stateChanged(a) }
        a.onUnsolicited = { [unowned self] a, frame in publish(frame: frame, from: a) }
        a.onClaimingFrame = { [unowned self] _ in sendDataBatches() }
        a.onRawSessionStarting = { [unowned self] _, origin in
            sendDataBatches()
            subscriptions[origin.clientID] = nil
        }
        a.onMaybeIdle = { [unowned self] a in applyPendingChange(to: a) }
        a.onRequestCompleted = { [unowned self] op in forget(op) }
        a.startTraceFile()
        if trafficWatched { a.setTrafficSubscribers(trafficSubscribers(of: a)) }
    }

    /// The accessory named `name`, if any. Device loop.
    func lookUp(_ name: String) -> Accessory? {
        if let last = lastLookup, last.name == name { return last }
        lastLookup = byName[name]
        return lastLookup
    }

    /// A request answered: it leaves the in-flight table. Device loop.
    private func forget(_ op: RequestOperation) {
        inflight.remove(op, client: op.origin.clientID)
    }

    /// Waits, at most `limit` in all, for the trace files that accessories stopped (at shutdown
    /// or a reload) to be written and closed; true if all were. The device loop never waits for
    /// them: the daemon's main thread calls this at exit, after the loops have stopped.
    public static func awaitTraceFiles(within limit: Duration) -> Bool {
        TraceWriter.awaitFinishing(within: limit)
    }

    /// Closes every accessory; what is still queued fails with `device unavailable`. Device loop.
    public func shutdown() {
        loop.preconditionInLoop()
        for a in accessories {
            a.shutDown(error: .daemonStopping(device: a.name), keepingDescriptor: true)
        }
        views.closeAll()
        listeners.closeAll()
    }

    /// Requests still waiting for an answer (for a graceful stop). Device loop.
    public var inflightCount: Int { inflight.count }

    /// The accessory called `name`. Device loop.
    public func accessory(named name: String) -> Accessory? { byName[name] }

    // MARK: - Notifications

    func stateChanged(_ a: Accessory) {
        loop.assertInLoop()
        sendDataBatches()  // Data that came before the change is announced before it.
        var line: [UInt8] = []
        ResponseEncoder.deviceState(device: a.name, state: a.reportedState, reason: a.reportedReason, into: &line)
        for s in subscriptions.values where s.events.contains(.state) && wants(s, a) {
            s.origin.notify(line: line)
        }
        views.accessoryChanged(a)
        listeners.accessoryChanged(a)
        onStateChange?(a)
    }

    private func publish(frame: [UInt8], from a: Accessory) {
        if !views.isEmpty { views.deliver(frame, from: a) }
        var encoded = false
        for origin in dataSubscribers(of: a) {
            if !encoded {
                // Encoded once for every subscriber, into storage kept from the last frame.
                dataLine.removeAll(keepingCapacity: true)
                ResponseEncoder.deviceData(device: a.name, frame: frame, into: &dataLine)
                encoded = true
            }
            if dataBatches.isEmpty {
                // Sent before the loop next waits, whatever delivered the frame (a read, or a
                // framer's idle-gap timer); earlier if a request claims a frame or a state changes.
                // Strong: a weak reference would give the registry a side table, and its
                // unowned uses (several a request) the slow path. The block runs soon anyway.
                loop.perform { [self] in sendDataBatches() }
            }
            let client = origin.clientID
            if dataBatches[client] == nil {
                // Room for a read's worth of lines, so that the batch is not regrown per frame.
                var lines: [UInt8] = []
                lines.reserveCapacity(16 << 10)
                dataBatches[client] = (origin, lines)
            }
            dataBatches[client]!.lines.append(contentsOf: dataLine)
        }
    }

    /// Sends the batched `device.data` lines. Device loop.
    func sendDataBatches() {
        guard !dataBatches.isEmpty else { return }
        let batches = dataBatches
        dataBatches.removeAll(keepingCapacity: true)
        for (_, batch) in batches { batch.origin.notify(line: batch.lines) }
    }

    /// The clients subscribed to `a`'s data that may use it, worked out once and kept on the
    /// accessory until the subscriptions change (per frame, the checks cost more than the
    /// encoding of a short frame). Device loop.
    private func dataSubscribers(of a: Accessory) -> [any RequestOrigin] {
        if let known = a.dataSubscribers { return known }
        let found = subscriptions.values.filter { $0.events.contains(.data) && wants($0, a) }.map(\.origin)
        a.dataSubscribers = found
        return found
    }

    /// Polls the modem lines of exactly the accessories some client subscribes to `lines` of.
    /// Device loop.
    /// Runs at every change of the subscriptions: with no `lines` subscriber now or at the last
    /// change (the usual case) it costs nothing, whatever the accessories and subscribers.
    func updateLinePolling() {
        guard subscriptions.wantingLines > 0 || linesWatched else { return }
        linesWatched = subscriptions.wantingLines > 0
        let watchers = subscriptions.values.filter { $0.events.contains(.lines) }
        for a in accessories {
            let wanted = watchers.contains { wants($0, a) }
            a.pollLines(wanted) { [unowned self] a, lines in linesChanged(a, lines) }
        }
    }

    /// `device.lines` with `{device, lines}` to the clients subscribed to it.
    private func linesChanged(_ a: Accessory, _ lines: ModemLines) {
        loop.assertInLoop()
        sendDataBatches()  // Data that came before the change is announced before it.
        var line: [UInt8] = []
        ResponseEncoder.notification(
            method: "device.lines",
            params: DeviceLines(device: a.name, lines: Accessory.lineState(lines)),
            into: &line
        )
        for s in subscriptions.values where s.events.contains(.lines) && wants(s, a) {
            s.origin.notify(line: line)
        }
    }

    func wants(_ s: Subscription, _ a: Accessory) -> Bool {
        if let d = s.devices, !d.contains(a.name) { return false }
        return a.access.allows(uid: s.origin.uid, gid: s.origin.gid, groups: s.origin.groups)
    }
}
