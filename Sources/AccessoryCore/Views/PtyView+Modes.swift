import AccessoryConfig
import ControlProtocol
import Glibc
import IOLoop
import JSONCodec
import Transports

/// What each mode does with the two directions of traffic. Device loop only.
extension PtyView {
    /// A frame no request claimed (what subscribers get as `device.data`): every mode shows it,
    /// re-framed, except an `exclusive` view in its raw session (it gets the raw bytes then).
    func unclaimed(_ frame: [UInt8], framing: FramingSettings) {
        if case .attached = session { return }
        writeToProgram(ViewFraming.output(frame, framing))
    }

    /// Bytes the program wrote.
    func programWrote(_ bytes: [UInt8]) {
        switch settings.mode {
        case .monitor:
            counters.discardedBytes += UInt64(bytes.count)
            if !discardLogged {
                discardLogged = true
                registry?.log(
                    .notice,
                    "view \(link.path) of \(accessoryName) is a monitor view: what programs write to it is discarded "
                        + "(said once; counted as discarded_bytes)"
                )
            }
        case .shared:
            guard let reader = inputReaderForCurrentFraming() else { return }
            reader.receive(bytes)
        case .exclusive:
            exclusiveInput(bytes)
        }
    }

    /// The accessory's state changed (or the view was just made): logged and counted when it
    /// comes or goes.
    func accessoryChanged(ready: Bool, state: String) {
        loop.assertInLoop()
        guard ready != accessoryReady else { return }
        accessoryReady = ready
        counters.accessoryChanges += 1
        if ready { refusalLogged = false }
        registry?.log(
            .info,
            "view \(link.path): \(accessoryName) is \(state)"
                + (ready ? "" : "; what programs write to the view is refused until it is back")
        )
    }

    // MARK: - shared

    private func inputReaderForCurrentFraming() -> FrameReader? {
        guard let framing = registry?.accessory(named: accessoryName)?.settings.framing else { return nil }
        if let inputReader, inputFraming == framing { return inputReader }
        let reader = FrameReader(framer: ViewFraming.inputFramer(framing), scheduler: loop)
        reader.onFrame = { [unowned self] frame in sharedFrame(frame) }
        reader.onDropped = { [unowned self] error in
            counters.refusedFrames += 1
            registry?.log(.warning, "view \(link.path): \(error)")
        }
        inputReader = reader
        inputFraming = framing
        return reader
    }

    private func sharedFrame(_ frame: [UInt8]) {
        pendingFrames.append(frame)
        sendPendingFrames()
    }

    /// Sends waiting frames as `transact`s, in order, while fewer than the maximum are in flight.
    func sendPendingFrames() {
        // A request refused at once is answered inside `handle`: the loop below goes on with
        // the next frame rather than this function running again inside itself.
        guard !isSendingFrames else { return }
        isSendingFrames = true
        defer { isSendingFrames = false }
        while requestsInFlight < Self.maxRequestsInFlight, !pendingFrames.isEmpty {
            let frame = pendingFrames.removeFirst()
            guard let registry, let a = registry.accessory(named: accessoryName), a.state == .ready else {
                refuse(frames: 1, because: "\(accessoryName) is not ready")
                continue
            }
            requestsInFlight += 1
            counters.framesToDevice += 1
            let id = nextRequestID
            nextRequestID += 1
            let params = TransferParams(device: accessoryName, data: frame, waitMs: Self.lockWaitMs)
            registry.handle(Request(id: .int(id), method: .transact(params)), from: self)
        }
        updateInterest()
    }

    func refuse(frames: Int, because reason: String) {
        counters.refusedFrames += UInt64(frames)
        guard !refusalLogged else { return }
        refusalLogged = true
        registry?.log(
            .notice,
            "view \(link.path): refused what its program wrote: \(reason) (said once until \(accessoryName) is "
                + "back; counted as refused_frames)"
        )
    }

    private func sharedAnswer(_ result: Result<any JSONEncodable & Sendable, RPCError>) {
        requestsInFlight -= 1
        switch result {
        case .success(let value):
            if let transact = value as? TransactResult, isOpen {
                let framing = registry?.accessory(named: accessoryName)?.settings.framing ?? FramingSettings()
                for frame in transact.frames {
                    counters.replies += 1
                    writeToProgram(ViewFraming.output(frame.bytes, framing))
                }
            }
        case .failure(let error):
            refuse(frames: 1, because: error.message)
        }
        sendPendingFrames()
    }

    // MARK: - exclusive

    private func exclusiveInput(_ bytes: [UInt8]) {
        switch session {
        case .attached(let input):
            counters.framesToDevice += 1
            idle?.activity()
            input(bytes)
        case .attaching(let id, let pending):
            session = .attaching(id: id, pending: pending + bytes)
        case .idle:
            guard let registry, let a = registry.accessory(named: accessoryName), a.state == .ready else {
                refuse(frames: 1, because: "\(accessoryName) is not ready")
                return
            }
            let id = nextRequestID
            nextRequestID += 1
            session = .attaching(id: id, pending: bytes)
            updateInterest()
            let params = AttachParams(device: accessoryName, waitMs: Self.lockWaitMs)
            registry.handle(Request(id: .int(id), method: .attach(params)), from: self)
        }
    }

    /// Ends the raw session (the program closed the view, or the view is going): the accessory's
    /// `attach` ends as when a client leaves, and the queue goes on after its resync.
    func endSession(reason: String) {
        loop.assertInLoop()
        if case .idle = session { return }
        session = .idle
        rawPaused = false
        stopIdleTimer()
        registry?.releaseEverything(of: self)
        registry?.log(.info, "view \(link.path): raw session on \(accessoryName) ended (\(reason))")
        updateInterest()
    }

    /// `idle_ms`: the session ends after that long without a byte either way.
    private func startIdleTimer() {
        guard let ms = settings.idleMs else { return }
        let timer = IdleTimer(scheduler: loop, limit: .milliseconds(ms))
        idle = timer
        timer.start { [weak self] in self?.endSession(reason: "no bytes either way for \(ms) ms (idle_ms)") }
    }

    func stopIdleTimer() {
        idle?.stop()
        idle = nil
    }
}

extension PtyView: RequestOrigin {
    var uid: uid_t { ownerID }
    var gid: gid_t { groupID }
    var groups: [gid_t] { [] }
    /// The raw stream is the device's bytes only: a program reading a tty would take a notice line
    /// for the device's.
    var wantsRawNotices: Bool { false }

    func respond(id: RequestID, result: Result<any JSONEncodable & Sendable, RPCError>) {
        loop.assertInLoop()
        guard !isClosed else { return }
        if case .attaching(let attachID, let pending) = session, id == .int(attachID) {
            if case .failure(let error) = result {
                session = .idle
                refuse(frames: 1, because: error.message)
                counters.refusedBytes += UInt64(pending.count)
                updateInterest()
            }
            return  // On success, `beginRaw` follows at once.
        }
        if settings.mode == .shared { sharedAnswer(result) }
    }

    func notify(line: [UInt8]) {
        loop.assertInLoop()
        guard !isClosed, case .attached = session else { return }
        idle?.activity()
        writeToProgram(line)
    }

    func beginRaw(input: @escaping @Sendable ([UInt8]) -> Void) {
        loop.assertInLoop()
        guard case .attaching(_, let pending) = session else { return }
        session = .attached(input: input)
        counters.sessions += 1
        startIdleTimer()
        registry?.log(.info, "view \(link.path): its program holds \(accessoryName) as a raw session")
        if !pending.isEmpty {
            counters.framesToDevice += 1
            input(pending)
        }
        updateInterest()
    }

    func pauseRawInput(_ paused: Bool) {
        // Called from the raw input's own path, possibly on another thread.
        loop.execute { [weak self] in
            guard let self else { return }
            rawPaused = paused
            updateInterest()
        }
    }

    /// The daemon ends the view's part (its raw device went away, an idle session, an
    /// administrator): the view stays, and the next write starts again.
    func disconnect(reason: String) {
        loop.execute { [weak self] in
            guard let self, !isClosed else { return }
            if case .idle = session { return }
            session = .idle
            rawPaused = false
            stopIdleTimer()
            registry?.log(.info, "view \(link.path): raw session on \(accessoryName) ended (\(reason))")
            updateInterest()
        }
    }
}
