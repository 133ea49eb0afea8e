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

    /// Called with each chunk read, lent from the channel's read buffer for the call only (no
    /// array per read): a consumer that keeps the bytes copies them, before it calls anything
    /// that may read this channel again. Loop thread only.
    public var onBytes: ((UnsafeRawBufferPointer) -> Void)?
    /// Called once when the device goes away (see the type's description). Loop thread only.
    public var onGone: ((GoneReason) -> Void)?
    /// Called when the outbound queue empties after having held bytes. Loop thread only.
    public var onDrained: (() -> Void)?

    /// Bytes read and written so far (for status reports).
    public internal(set) var bytesRead: UInt64 = 0
    public internal(set) var bytesWritten: UInt64 = 0

    var state = State.open
    var source: FDSource?
    var outbound = OutboundQueue()
    let readBuffer: UnsafeMutableRawBufferPointer
    var readingPaused = false

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
            // Unowned, not weak: a weak reference would give the channel a side table, and every
            // retain of it (several an event) the slow path. The source never outlives the
            // channel's use of it: close() and deinit cancel it, and a cancelled source is not called.
            source = try loop.addSource(owning: descriptor, interest: .readable) { [unowned self] events in
                handle(events)
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
                case .success(.processed(let n)) where n > 0:
                    offset += n
                    bytesWritten += UInt64(n)
                case .success:  // EAGAIN (or a zero-byte write): wait for readiness
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
