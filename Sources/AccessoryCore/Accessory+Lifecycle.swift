import AccessoryConfig
import ControlProtocol
import IOLoop
import Transports

extension Accessory {
    /// Opens the accessory now, or schedules the next attempt. Device loop.
    func open() {
        loop.preconditionInLoop()
        guard !isShutDown else { return }
        reopen.cancel()
        guard settings.enabled else {
            setState(.disabled, "disabled in the configuration")
            return
        }
        guard state != .ready, state != .opening else { return }
        if isMatchedByUdev && devicePath == nil, case .match(let m) = settings.source {
            // Found only by the udev monitor, which sets `devicePath` when a matching device is
            // present (``deviceAppeared(at:)``); until then there is nothing to open or poll.
            setState(.absent, "waiting for a udev device matching \(describe(m))")
            return
        }
        counters.openAttempts += 1
        switch settings.source {
        case .rfcomm(let target):
            openRFCOMM(target)
        default:
            guard let path = devicePath else { return }
            openSerial(path)
        }
    }

    private func describe(_ m: UdevMatch) -> String {
        [m.vendorID.map { "vendor \($0)" }, m.productID.map { "product \($0)" }, m.serial.map { "serial \($0)" }]
            .compactMap { $0 }.joined(separator: ", ")
    }

    private func openSerial(_ path: String) {
        setState(.opening, path)
        do {
            let port = try SerialPort.open(
                path: path,
                settings: TransportMapping.serialSettings(settings.serial),
                on: loop,
                exclusive: true,
                maxOutboundBytes: max(limits.clientOutboundBytes, settings.framing.maxFrameBytes * 4)
            )
            self.port = port
            standInForModemLines(of: port, link: path)
            attach(port.channel, description: path)
        } catch {
            counters.lastError = error.description
            if case .notFound = error {
                setState(.absent, error.description)
            } else {
                setState(.failed, error.description)
            }
            scheduleReopen()
        }
    }

    private func openRFCOMM(_ target: RFCOMMTarget) {
        let endpoint: RFCOMMEndpoint
        do {
            endpoint = try RFCOMMEndpoint(address: BluetoothAddress(parsing: target.address), channel: target.channel)
        } catch {
            setState(.failed, error.description)
            return
        }
        setState(.opening, "connecting to \(endpoint)")
        rfcommConnector = RFCOMMConnector.connect(
            to: endpoint,
            on: loop,
            driver: rfcommDriver,
            maxOutboundBytes: limits.clientOutboundBytes
        ) { [link] result in
            link.accessory?.rfcommConnected(result, endpoint: endpoint)
        }
    }

    private func rfcommConnected(_ result: Result<StreamChannel, TransportError>, endpoint: RFCOMMEndpoint) {
        rfcommConnector = nil
        switch result {
        case .success(let channel):
            rfcommChannel = channel
            attach(channel, description: "\(endpoint)")
        case .failure(let error):
            counters.lastError = error.description
            switch error {
            case .accessoryAbsent: setState(.absent, error.description)
            default: setState(.failed, error.description)
            }
            scheduleReopen()
        }
    }

    /// Bytes read from the device: to the raw session, or the framer (whose frames a running
    /// resync discards, ``didReceive(frame:)``).
    private func received(_ bytes: [UInt8], reader: FrameReader) {
        counters.bytesIn += UInt64(bytes.count)
        if let tap { tap.record(.rx, bytes, client: nil, request: nil) }
        if let raw = rawSession {
            raw.idle.activity()
            raw.origin.notify(line: bytes)
            return
        }
        if resync.isActive { resync.noteBytes() }
        reader.receive(bytes)
    }

    /// Wires a freshly opened stream to the framer and the state machine.
    private func attach(_ channel: StreamChannel, description: String) {
        let reader = FrameReader(framer: TransportMapping.framer(settings.framing), scheduler: loop)
        self.reader = reader
        // One method call a read: each use of an unowned capture costs a checked retain.
        channel.onBytes = { [unowned self, unowned reader] bytes in received(bytes, reader: reader) }
        reader.onFrame = { [unowned self] frame in didReceive(frame: frame) }
        reader.onDropped = { [unowned self] error in
            counters.framesDropped += 1
            counters.lastError = error.description
            log(.warning, "\(name): \(error)")
            claimant?.frameSkipped(error)
        }
        channel.onDrained = { [unowned self] in
            claimant?.outboundDrained()
            rawDrained()
        }
        channel.onGone = { [unowned self] reason in deviceGone(reason.description) }
        counters.opens += 1
        reopen.reset()
        if removedSinceOpen {
            // A device that was unplugged and plugged back has been reset: it owes no answer, but
            // may say something as it comes up, so the line settles first. Where a removal is not
            // a reset (`after_reopen: late_answer`), the answer of a transaction the removal
            // interrupted may still come: it is discarded until that request's old deadline.
            removedSinceOpen = false
            let now = loop.now
            let due = settings.resync.afterReopen == .lateAnswer ? lateAnswerDue.flatMap { $0 > now ? $0 : nil } : nil
            lateAnswerDue = nil
            let what = due == nil ? "settling" : "discarding the answer of a request interrupted by the removal"
            setState(.opening, "\(description): \(what)")
            settleAfterReopen(lateAnswerUntil: due) { [link] in
                guard let accessory = link.accessory, accessory.channel != nil, accessory.state == .opening else {
                    return
                }
                accessory.becomeReady(description)
            }
            return
        }
        becomeReady(description)
    }

    private func becomeReady(_ description: String) {
        lateAnswerDue = nil
        setState(.ready, description)
        admitReadyWaiters()
    }

    /// The device went away (EOF, EIO, hang-up): fail what is queued, tell subscribers, reopen.
    func deviceGone(_ reason: String) {
        loop.assertInLoop()
        guard state == .ready || (state == .opening && channel != nil) else { return }
        counters.removals += 1
        counters.lastError = reason
        removedSinceOpen = true
        detachTransport()
        cancelResync()
        queue.drain(error: AccessoryError.removed(device: name, reason: reason))
        setState(.absent, "removed: \(reason)")
        scheduleReopen(afterMs: settings.reconnect.initialMs)
    }

    private func detachTransport() {
        if let c = channel {
            c.onBytes = nil
            c.onGone = nil
            c.onDrained = nil
        }
        port?.close()
        port = nil
        rfcommChannel?.close()
        rfcommChannel = nil
        rfcommConnector?.cancel()
        rfcommConnector = nil
        reader?.reset()
        reader = nil
    }

    /// Hot-plug says the device is there (udev `add`, or its link appeared in a watched folder):
    /// open it now rather than at the next back-off attempt. `path` is the node udev reported, for
    /// accessories found by identity. Device loop.
    func deviceAppeared(at path: String? = nil) {
        loop.preconditionInLoop()
        if let path, isMatchedByUdev { devicePath = path }
        guard !isShutDown, state != .ready, state != .opening else { return }
        reopen.reset()
        open()
    }

    /// Hot-plug says the device went away (udev `remove`, or its link disappeared): closed as for
    /// a hang-up. An accessory found by identity forgets the node and waits for udev; the others
    /// keep their back-off attempts as a safety net. Device loop.
    func deviceDisappeared(_ reason: String) {
        loop.preconditionInLoop()
        if state == .ready {
            closeWhileItMayStillAnswer(reason)
        }
        if isMatchedByUdev {
            devicePath = nil
            reopen.cancel()
            if !isShutDown, state != .disabled { open() }
        }
    }

    /// Several present devices match this accessory's identity: it is closed (what was queued
    /// fails with `device removed`) and stays `failed` with the reason until only one is left.
    /// Device loop.
    func reportConflict(_ reason: String) {
        loop.preconditionInLoop()
        guard stateReason != reason else { return }
        if state == .ready { closeWhileItMayStillAnswer(reason) }
        devicePath = nil
        reopen.cancel()
        counters.lastError = reason
        setState(.failed, reason)
    }

    /// Closes a device that hot-plug (not the device itself) says is gone: the port was still
    /// fine, so a transaction in progress may yet be answered, and if the same device is reopened
    /// before that answer was due, the reopen discards it first. (A hang-up or EOF needs no such
    /// care: that device is gone, and with it whatever it was about to say.)
    private func closeWhileItMayStillAnswer(_ reason: String) {
        lateAnswerDue = claimant?.responseDue
        deviceGone(reason)
    }

    /// Found by vendor/product/serial (not a path or a by-id link): only udev can find it.
    var isMatchedByUdev: Bool {
        if case .match(let m) = settings.source, m.byID == nil { return true }
        return false
    }

    func scheduleReopen(afterMs: Int? = nil) {
        guard !isShutDown else { return }
        if isMatchedByUdev && devicePath == nil { return }  // udev will say when it is back
        reopen.schedule(after: afterMs.map { .milliseconds($0) }) { [link] in
            guard let accessory = link.accessory, accessory.state != .ready else { return }
            accessory.open()
        }
    }

    /// Closes the accessory for good (daemon shutdown, or replaced or removed by a reload):
    /// every request still queued fails with `error`. Device loop.
    func shutDown(error: AccessoryError, reason: String = "shut down") {
        loop.assertInLoop()
        isShutDown = true
        reopen.cancel()
        linePoll.stop()
        failLockWaiters(error)
        queue.drain(error: error)
        for w in admission.readyWaiters { w.finish() }
        detachTransport()
        cancelResync()
        stopTraceFile()
        setState(.disabled, reason)
    }
}
