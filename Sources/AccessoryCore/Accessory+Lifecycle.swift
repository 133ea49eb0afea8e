import AccessoryConfig
import ControlProtocol
import IOLoop
import Transports

extension Accessory {
    /// Opens the accessory now, or schedules the next attempt. Device loop.
    func open() {
        loop.preconditionInLoop()
        guard !isShutDown else { return }
        reopenTimer?.cancel()
        reopenTimer = nil
        guard settings.enabled else {
            setState(.disabled, "disabled in the configuration")
            return
        }
        guard state != .ready, state != .opening else { return }
        switch settings.source {
        case .rfcomm(let target):
            openRFCOMM(target)
        case .match(let m) where m.byID == nil:
            // Matching by vendor/product/serial needs the udev monitor (hot-plug); without it there
            // is nothing to open and nothing to poll, so say so plainly.
            setState(.absent, "waiting for a udev device matching \(describe(m)); hot-plug matching is not enabled")
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
        rfcommConnector = RFCOMMConnector.connect(to: endpoint, on: loop, maxOutboundBytes: limits.clientOutboundBytes)
        {
            [weak self] result in
            guard let self else { return }
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
    }

    /// Wires a freshly opened stream to the framer and the state machine.
    private func attach(_ channel: StreamChannel, description: String) {
        let reader = FrameReader(framer: TransportMapping.framer(settings.framing), scheduler: loop)
        self.reader = reader
        channel.onBytes = { [unowned self, unowned reader] bytes in
            counters.bytesIn += UInt64(bytes.count)
            if let r = resync {
                noteResyncBytes()
                // While an abandoned answer is awaited, frame it to see where it ends.
                if r.awaitingResponseUntil != nil { reader.receive(bytes) }
                return
            }
            reader.receive(bytes)
        }
        reader.onFrame = { [unowned self] frame in didReceive(frame: frame) }
        reader.onDropped = { [unowned self] error in
            counters.framesDropped += 1
            counters.lastError = error.description
            log(.warning, "\(name): \(error)")
        }
        channel.onDrained = { [unowned self] in claimant?.outboundDrained() }
        channel.onGone = { [unowned self] reason in deviceGone(reason.description) }
        counters.opens += 1
        backoffMs = settings.reconnect.initialMs
        setState(.ready, description)
        admitReadyWaiters()
    }

    /// The device went away (EOF, EIO, hang-up): fail what is queued, tell subscribers, reopen.
    func deviceGone(_ reason: String) {
        guard state == .ready else { return }
        counters.removals += 1
        counters.lastError = reason
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

    func scheduleReopen(afterMs: Int? = nil) {
        guard !isShutDown, reopenTimer == nil else { return }
        let delay = afterMs ?? backoffMs
        backoffMs = min(settings.reconnect.maxMs, max(1, backoffMs * 2))
        reopenTimer = loop.scheduleTimer(after: .milliseconds(delay)) { [weak self] in
            guard let self else { return }
            reopenTimer = nil
            if state != .ready { open() }
        }
    }

    /// Closes the accessory for good (daemon shutdown, or replaced or removed by a reload):
    /// every request still queued fails with `error`. Device loop.
    func shutDown(error: AccessoryError, reason: String = "shut down") {
        isShutDown = true
        reopenTimer?.cancel()
        reopenTimer = nil
        failLockWaiters(error)
        queue.drain(error: error)
        for w in readyWaiters { w.finish() }
        detachTransport()
        cancelResync()
        setState(.disabled, reason)
    }
}
