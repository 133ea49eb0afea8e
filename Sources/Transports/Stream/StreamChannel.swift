import IOLoop
import SystemCalls

/// A byte stream over one non-blocking descriptor (a serial tty, an RFCOMM socket, or a stand-in
/// such as a socketpair), shared by ``SerialPort`` and ``RFCOMMConnector``.
///
/// - Inbound bytes go to ``onBytes`` as they arrive (a bounded number of reads per readiness
///   event, so one busy device cannot starve the loop).
/// - ``write(_:)`` queues, writes as much as the kernel takes now, and waits for write readiness
///   for the rest (`EAGAIN` and short writes are normal). It refuses bytes past
///   ``maxOutboundBytes`` with ``TransportError/outboundLimitExceeded(limit:queued:attempted:)``;
///   ``onDrained`` says when the queue has emptied again.
/// - Device loss (`read()==0`, `EIO` or another read/write error, `EPOLLHUP`/`EPOLLERR`) is
///   reported exactly once through ``onGone``, after the descriptor has been deregistered and
///   closed, so a dead device can never spin the loop.
/// - After ``close()`` no callback is called again (not even ``onGone``).
///
/// Loop thread only: create it, use it and drop it on its loop's thread.
public final class StreamChannel: @unchecked Sendable {  // @unchecked: all mutable state is loop-confined.
    /// How bytes are written: `write` for ttys, pipes and files; `send(MSG_NOSIGNAL)` for sockets,
    /// so that a vanished peer is `EPIPE` rather than a process-killing `SIGPIPE`.
    public enum Kind: Sendable, Equatable {
        case file
        case socket
    }

    enum State {
        case open
        case gone
        case closed
    }

    /// The loop it lives on.
    public let loop: IOLoop
    /// How bytes are written.
    public let kind: Kind
    /// Most bytes accepted by ``write(_:)`` and not yet written to the descriptor.
    public let maxOutboundBytes: Int

    /// Called with each chunk read. Loop thread only.
    public var onBytes: (([UInt8]) -> Void)?
    /// Called once when the device goes away (see the type's description). Loop thread only.
    public var onGone: ((GoneReason) -> Void)?
    /// Called when the outbound queue empties after having held bytes. Loop thread only.
    public var onDrained: (() -> Void)?

    /// Bytes read and written so far (for status reports).
    public private(set) var bytesRead: UInt64 = 0
    public private(set) var bytesWritten: UInt64 = 0

    var state = State.open
    private var source: FDSource?
    private var outbound = OutboundQueue()
    private let readBuffer: UnsafeMutableRawBufferPointer
    private var readingPaused = false

    /// Reads per readiness event before the loop gets to do other work.
    static let maxReadsPerEvent = 16

    /// Takes ownership of `descriptor` (which must be non-blocking) and starts reading it.
    ///
    /// - Parameters:
    ///   - maxOutboundBytes: the back-pressure limit of ``write(_:)``.
    ///   - readChunkSize: the size of each `read`.
    ///
    /// Loop thread only.
    public init(
        owning descriptor: consuming OwnedFD,
        kind: Kind,
        on loop: IOLoop,
        maxOutboundBytes: Int = 1 << 20,
        readChunkSize: Int = 64 << 10
    ) throws(TransportError) {
        loop.preconditionInLoop()
        precondition(maxOutboundBytes > 0 && readChunkSize > 0)
        self.loop = loop
        self.kind = kind
        self.maxOutboundBytes = maxOutboundBytes
        self.readBuffer = .allocate(byteCount: readChunkSize, alignment: 16)
        let fd = descriptor.rawValue
        do {
            source = try loop.addSource(owning: descriptor, interest: .readable) { [weak self] events in
                self?.handle(events)
            }
        } catch {
            // The descriptor was consumed by the failed registration and closed with it.
            state = .closed
            throw .system(context: "cannot watch descriptor \(fd)", error)
        }
    }

    deinit {
        // Dropped without close(): release the descriptor. On a loop that has shut down the source
        // is already invalid (the loop closed it) and nothing is touched.
        if let source, source.isValid { source.cancel() }
        readBuffer.deallocate()
    }

    /// True until the device goes away or ``close()`` is called. Loop thread only.
    public var isOpen: Bool { state == .open }

    /// The descriptor number while open, nil after: for ioctls by the channel's owner, status
    /// reports and fault-injection rules. The channel owns it; never close it. Loop thread only.
    public var fileDescriptor: CInt? { state == .open ? source?.fd : nil }

    /// Bytes accepted by ``write(_:)`` and not yet written. Loop thread only.
    public var queuedOutboundBytes: Int { outbound.count }

    /// Stops (true) or resumes (false) reading, for inbound back-pressure. A hang-up is still
    /// noticed while paused (the remaining bytes are then read and delivered before ``onGone``).
    /// Loop thread only.
    public var isReadingPaused: Bool {
        get { readingPaused }
        set {
            loop.preconditionInLoop()
            readingPaused = newValue
            updateInterest()
        }
    }

    /// Queues `bytes` and writes as much as possible now; the rest goes out as the descriptor
    /// becomes writable. A write error is not thrown: it means the device is gone, which
    /// ``onGone`` reports (on a later loop iteration, never from inside this call).
    ///
    /// - Throws: ``TransportError/closed`` once closed or gone;
    ///   ``TransportError/outboundLimitExceeded(limit:queued:attempted:)`` if the queue would
    ///   exceed ``maxOutboundBytes`` (nothing is queued then).
    ///
    /// Loop thread only.
    public func write(_ bytes: [UInt8]) throws(TransportError) {
        loop.preconditionInLoop()
        guard state == .open else { throw .closed }
        guard !bytes.isEmpty else { return }
        guard outbound.count + bytes.count <= maxOutboundBytes else {
            throw .outboundLimitExceeded(limit: maxOutboundBytes, queued: outbound.count, attempted: bytes.count)
        }
        if outbound.isEmpty {
            // Nothing queued: write straight from the caller's array, keep only what is left.
            var offset = 0
            while offset < bytes.count {
                let result = bytes.withUnsafeBytes { writeRaw(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
                switch result {
                case .success(.processed(let n)):
                    offset += n
                    bytesWritten += UInt64(n)
                case .success(.wouldBlock):
                    outbound.append(bytes, from: offset)
                    updateInterest()
                    return
                case .failure(let error):
                    becomeGone(.failed(error), deliverLater: true)
                    return
                }
            }
        } else {
            outbound.append(bytes)
        }
    }

    /// Drops the bytes queued and not yet written; returns how many. Loop thread only.
    @discardableResult
    public func discardOutbound() -> Int {
        loop.preconditionInLoop()
        let n = outbound.removeAll()
        if state == .open { updateInterest() }
        return n
    }

    /// Deregisters and closes the descriptor, dropping unsent bytes. No callback runs afterwards.
    /// Idempotent. Loop thread only.
    public func close() {
        loop.preconditionInLoop()
        if state == .open { teardown() }
        state = .closed
        releaseCallbacks()
    }

    // MARK: - Events

    private func handle(_ events: FDEvents) {
        guard state == .open else { return }
        let hungUp = !events.isDisjoint(with: [.hangup, .error])
        var readOutcome = ReadOutcome.notAttempted
        if events.contains(.readable) || hungUp {
            readOutcome = readAvailable(force: hungUp)
            guard state == .open else { return }
        }
        if events.contains(.writable) {
            flushOutbound()
            guard state == .open else { return }
        }
        if hungUp && readOutcome != .limitReached {
            // Nothing more to read and the kernel says the line is down: the device is gone.
            // (With the read limit reached there is still data; the level-triggered hang-up
            // comes back on the next iteration.)
            becomeGone(pendingSocketError() ?? .hangup, deliverLater: false)
        }
    }

    enum ReadOutcome {
        case notAttempted, drained, limitReached, ended
    }

    /// Reads until `EAGAIN`, end of file, an error, or the per-event limit.
    private func readAvailable(force: Bool) -> ReadOutcome {
        if readingPaused && !force { return .notAttempted }
        for _ in 0..<StreamChannel.maxReadsPerEvent {
            guard let fd = source?.fd else { return .ended }
            let result: IOResult<Int>
            do {
                result = try FileIO.read(fd, into: readBuffer)
            } catch {
                becomeGone(.failed(error), deliverLater: false)
                return .ended
            }
            switch result {
            case .wouldBlock:
                return .drained
            case .processed(0):
                becomeGone(.endOfFile, deliverLater: false)
                return .ended
            case .processed(let n):
                bytesRead += UInt64(n)
                let chunk = [UInt8](UnsafeRawBufferPointer(rebasing: readBuffer[0..<n]))
                onBytes?(chunk)
                guard state == .open else { return .ended }
                if readingPaused && !force { return .drained }
            }
        }
        return .limitReached
    }

    /// Writes queued bytes until the queue is empty or the kernel pushes back.
    private func flushOutbound() {
        let hadBytes = !outbound.isEmpty
        while !outbound.isEmpty {
            guard let result = outbound.withHead({ writeRaw($0) }) else { break }
            switch result {
            case .success(.processed(let n)):
                outbound.consume(n)
                bytesWritten += UInt64(n)
            case .success(.wouldBlock):
                updateInterest()
                return
            case .failure(let error):
                becomeGone(.failed(error), deliverLater: false)
                return
            }
        }
        updateInterest()
        if hadBytes { onDrained?() }
    }

    private func writeRaw(_ buffer: UnsafeRawBufferPointer) -> Result<IOResult<Int>, SyscallError> {
        guard let fd = source?.fd else { return .success(.wouldBlock) }
        do {
            switch kind {
            case .file: return .success(try FileIO.write(fd, from: buffer))
            case .socket: return .success(try Socket.send(fd, from: buffer))
            }
        } catch {
            return .failure(error)
        }
    }

    private func updateInterest() {
        guard let source, source.isValid else { return }
        var interest: FDInterest = readingPaused ? [] : .readable
        if !outbound.isEmpty { interest.insert(.writable) }
        source.setInterest(interest)
    }

    /// For a socket, the error behind `EPOLLERR` (`SO_ERROR`), when there is one.
    private func pendingSocketError() -> GoneReason? {
        guard kind == .socket, let fd = source?.fd else { return nil }
        guard let errno = try? Socket.pendingError(fd) else { return nil }
        return .failed(SyscallError(.recv, errno))
    }

    // MARK: - Ending

    /// Marks the channel gone, closes the descriptor at once, and reports it: now (from an event
    /// handler) or on the next loop iteration (from inside `write`, so that the caller is not
    /// re-entered).
    func becomeGone(_ reason: GoneReason, deliverLater: Bool) {
        guard state == .open else { return }
        state = .gone
        teardown()
        if deliverLater {
            loop.scheduleTimer(after: .zero) { [self] in deliverGone(reason) }
        } else {
            deliverGone(reason)
        }
    }

    private func deliverGone(_ reason: GoneReason) {
        guard state == .gone else { return }  // closed meanwhile: no callbacks after close()
        let callback = onGone
        releaseCallbacks()
        callback?(reason)
    }

    private func teardown() {
        source?.cancel()
        outbound.removeAll()
    }

    private func releaseCallbacks() {
        // The owner's closures usually capture the owner, which holds this channel: break the cycle.
        onBytes = nil
        onGone = nil
        onDrained = nil
    }
}
