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
            move(to: .closed(.disabled, reason: "disabled in the configuration", removal: nil))
            return
        }
        guard linkState.kind == .closed else { return }
        if isMatchedByUdev && devicePath == nil, case .match(let m) = settings.source {
            // Found only by the udev monitor, which sets `devicePath` when a matching device is
            // present (``deviceAppeared(at:)``); until then there is nothing to open or poll.
            close(.absent, "waiting for a udev device matching \(describe(m))")
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
        move(to: .opening(reason: path, removal: linkState.removal, connector: nil))
        do {
            let opening = try opener.openSerial(
                path: path,
                settings: TransportMapping.serialSettings(settings.serial),
                maxOutboundBytes: max(limits.clientOutboundBytes, settings.framing.maxFrameBytes * 4),
                for: name
            )
            if opening.adopted {
                log(.info, "\(name): kept open across the restart: \(path) was not closed")
            } else if let refused = opening.keptRefused {
                log(
                    .notice,
                    "\(name): closed the descriptor kept across the restart (\(refused)); opened \(path) afresh"
                )
            }
            if let port = opening.port { standInForModemLines(of: port, link: path) }
            attach(opening.channel, port: opening.port, description: path)
        } catch {
            counters.lastError = error.description
            if case .notFound = error {
                close(.absent, error.description)
            } else {
                close(.failed, error.description)
            }
            scheduleReopen()
        }
    }

    /// Moves to closed, keeping what an unplug left for the next open (``Removal``).
    private func close(_ state: DeviceState, _ reason: String) {
        move(to: .closed(state, reason: reason, removal: linkState.removal))
    }

    private func openRFCOMM(_ target: RFCOMMTarget) {
        let endpoint: RFCOMMEndpoint
        do {
            endpoint = try RFCOMMEndpoint(address: BluetoothAddress(parsing: target.address), channel: target.channel)
        } catch {
            close(.failed, error.description)
            return
        }
        let removal = linkState.removal
        move(to: .opening(reason: "connecting to \(endpoint)", removal: removal, connector: nil))
        let connector = opener.connectRFCOMM(to: endpoint, maxOutboundBytes: limits.clientOutboundBytes) {
            [link] result in
            link.accessory?.rfcommConnected(result, endpoint: endpoint)
        }
        // Unless it already finished (a connect refused at once has moved the link on).
        if case .opening(let reason, let removal, nil) = linkState {
            replaceLink(with: .opening(reason: reason, removal: removal, connector: connector))
        }
    }

    private func rfcommConnected(_ result: Result<any DeviceChannel, TransportError>, endpoint: RFCOMMEndpoint) {
        guard linkState.kind == .opening else { return }
        switch result {
        case .success(let channel):
            attach(channel, port: nil, description: "\(endpoint)")
        case .failure(let error):
            counters.lastError = error.description
            switch error {
            case .accessoryAbsent: close(.absent, error.description)
            default: close(.failed, error.description)
            }
            scheduleReopen()
        }
    }

    /// Bytes read from the device: to the raw session, or the framer (whose frames a running
    /// resync discards, ``didReceive(frame:)``). The bytes are the channel's, lent for the call:
    /// the framer copies them into its buffer; the raw session and the trace take a copy.
    private func received(_ bytes: UnsafeRawBufferPointer, reader: FrameReader) {
        counters.bytesIn += UInt64(bytes.count)
        if let raw = rawSession {
            let chunk = [UInt8](bytes)
            if let tap { traceReceived(chunk, on: tap) }
            raw.idle.activity()
            raw.origin.notify(line: chunk)
            return
        }
        if resync.isActive {
            resync.noteBytes()
            if let tap { traceReceived([UInt8](bytes), on: tap) }
        } else if let tap {
            // Traced frame by frame: which request each frame answered.
            return receiveTraced([UInt8](bytes), reader: reader, tap: tap)
        }
        reader.receive(bytes)
    }

    /// Wires a freshly opened stream to the framer and the state machine.
    private func attach(_ channel: any DeviceChannel, port: SerialPort?, description: String) {
        let reader = FrameReader(framer: TransportMapping.framer(settings.framing), scheduler: loop)
        let device = OpenDevice(channel: channel, reader: reader, port: port, description: description)
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
        if let removal = linkState.removal {
            // A device that was unplugged and plugged back has been reset: it owes no answer, but
            // may say something as it comes up, so the line settles first. Where a removal is not
            // a reset (`after_reopen: late_answer`), the answer of a transaction the removal
            // interrupted may still come: it is discarded until that request's old deadline.
            let now = loop.now
            let due =
                settings.resync.afterReopen == .lateAnswer ? removal.lateAnswerDue.flatMap { $0 > now ? $0 : nil } : nil
            let what = due == nil ? "settling" : "discarding the answer of a request interrupted by the removal"
            move(to: .settling(device, reason: "\(description): \(what)"))
            settleAfterReopen(lateAnswerUntil: due) { [link] in
                guard let accessory = link.accessory, case .settling(let device, _) = accessory.linkState else {
                    return
                }
                accessory.becomeReady(device)
            }
            return
        }
        becomeReady(device)
    }

    private func becomeReady(_ device: OpenDevice) {
        move(to: .ready(device, reason: device.description))
        admitReadyWaiters()
    }

    /// The device went away (EOF, EIO, hang-up): fail what is queued, tell subscribers, reopen.
    func deviceGone(_ reason: String) {
        loop.assertInLoop()
        deviceGone(reason, lateAnswerDue: nil)
    }

    private func deviceGone(_ reason: String, lateAnswerDue: LoopInstant?) {
        guard let device = linkState.device else { return }
        counters.removals += 1
        counters.lastError = reason
        // Closed first, with the removal remembered: what the queue's failures and the state's
        // listeners do next sees an accessory that is no longer open.
        close(device)
        opener.closedForGood(name)
        let changed = replaceLink(
            with: .closed(.absent, reason: "removed: \(reason)", removal: Removal(lateAnswerDue: lateAnswerDue))
        )
        cancelResync()
        queue.drain(error: AccessoryError.removed(device: name, reason: reason))
        if changed { announceState() }
        scheduleReopen(afterMs: settings.reconnect.initialMs)
    }

    /// Stops listening to an open device and closes it (a tty through its port, which lifts the
    /// exclusive open).
    private func close(_ device: OpenDevice) {
        let c = device.channel
        c.onBytes = nil
        c.onGone = nil
        c.onDrained = nil
        if let port = device.port { port.close() } else { c.close() }
        device.reader.reset()
    }

    /// Hot-plug says the device is there (udev `add`, or its link appeared in a watched folder):
    /// open it now rather than at the next back-off attempt. `path` is the node udev reported, for
    /// accessories found by identity. Device loop.
    func deviceAppeared(at path: String? = nil) {
        loop.preconditionInLoop()
        if let path, isMatchedByUdev { devicePath = path }
        guard linkState.kind == .closed else { return }
        reopen.reset()
        open()
    }

    /// Hot-plug says the device went away (udev `remove`, or its link disappeared): closed as for
    /// a hang-up. An accessory found by identity forgets the node and waits for udev; the others
    /// keep their back-off attempts as a safety net. Device loop.
    func deviceDisappeared(_ reason: String) {
        loop.preconditionInLoop()
        closeWhileItMayStillAnswer(reason)
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
        guard stateReason != reason, !isShutDown else { return }
        closeWhileItMayStillAnswer(reason)
        devicePath = nil
        reopen.cancel()
        counters.lastError = reason
        if case .opening(_, _, let connector) = linkState { connector?.cancel() }
        close(.failed, reason)
    }

    /// Closes a device that hot-plug (not the device itself) says is gone: the port was still
    /// fine, so a transaction in progress may yet be answered, and if the same device is reopened
    /// before that answer was due, the reopen discards it first. (A hang-up or EOF needs no such
    /// care: that device is gone, and with it whatever it was about to say.)
    private func closeWhileItMayStillAnswer(_ reason: String) {
        deviceGone(reason, lateAnswerDue: claimant?.responseDue)
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
    /// every request still queued fails with `error`. At a daemon shutdown its device stays in
    /// the descriptor store (`keepingDescriptor`), so that a restart finds it open; a reload that
    /// drops or replaces it drops it there too. Device loop.
    func shutDown(error: AccessoryError, reason: String = "shut down", keepingDescriptor: Bool = false) {
        loop.assertInLoop()
        guard !isShutDown else { return }
        let before = linkState
        let changed = replaceLink(with: .shutDown(reason: reason))
        reopen.cancel()
        linePoll.stop()
        failLockWaiters(error)
        queue.drain(error: error)
        for w in admission.readyWaiters { w.finish() }
        if case .opening(_, _, let connector) = before { connector?.cancel() }
        if let device = before.device { close(device) }
        if !keepingDescriptor { opener.closedForGood(name) }
        cancelResync()
        stopTraceFile()
        if changed { announceState() }
    }
}
