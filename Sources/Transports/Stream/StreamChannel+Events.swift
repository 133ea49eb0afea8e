import IOLoop
import SystemCalls

/// The readiness handling of ``StreamChannel``: reading, flushing the outbound queue, noticing
/// hang-ups. Loop thread only.
extension StreamChannel {
    /// The source's handler: what the loop saw on the descriptor.
    func handle(_ events: FDEvents) {
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
    func readAvailable(force: Bool) -> ReadOutcome {
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
                onBytes?(UnsafeRawBufferPointer(rebasing: readBuffer[0..<n]))
                guard state == .open else { return .ended }
                if readingPaused && !force { return .drained }
                // A short read means the kernel had no more: skip the read that would only say
                // EAGAIN (level-triggered epoll reports anything that arrives later). After a
                // hang-up keep reading, to reach the end of file.
                if n < readBuffer.count && !force { return .drained }
            }
        }
        return .limitReached
    }

    /// Writes queued bytes until the queue is empty or the kernel pushes back.
    func flushOutbound() {
        let hadBytes = !outbound.isEmpty
        while !outbound.isEmpty {
            guard let result = outbound.withHead({ writeRaw($0) }) else { break }
            switch result {
            case .success(.processed(let n)) where n > 0:
                outbound.consume(n)
                bytesWritten += UInt64(n)
            case .success:  // EAGAIN (or a zero-byte write): wait for readiness
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

    func writeRaw(_ buffer: UnsafeRawBufferPointer) -> Result<IOResult<Int>, SyscallError> {
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

    func updateInterest() {
        guard let source, source.isValid else { return }
        var interest: FDInterest = readingPaused ? [] : .readable
        if !outbound.isEmpty { interest.insert(.writable) }
        source.setInterest(interest)
    }

    /// For a socket, the error behind `EPOLLERR` (`SO_ERROR`), when there is one.
    func pendingSocketError() -> GoneReason? {
        guard kind == .socket, let fd = source?.fd else { return nil }
        guard let errno = try? Socket.pendingError(fd) else { return nil }
        return .failed(SyscallError(.recv, errno))
    }
}
