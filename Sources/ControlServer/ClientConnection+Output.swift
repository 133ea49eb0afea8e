import IOLoop
import SystemCalls

extension ClientConnection {
    /// Queues a line on the loop and writes at once if nothing was waiting. Never closes the
    /// connection directly (it may run inside a handler call); failures close it via perform.
    /// Control loop only.
    func enqueue(_ line: [UInt8], isResponse: Bool) {
        if isResponse && pendingRequests > 0 { pendingRequests -= 1 }
        guard phase != .closed, isOpen else {
            queuedBytes.wrappingSubtract(line.count, ordering: .relaxed)
            return
        }
        let wasEmpty = outbound.isEmpty
        outbound.append(line)
        if wasEmpty {
            if let failure = writeQueued() {
                closeSoon(failure)
                return
            }
        }
        updateInterest()
        if case .draining = phase, !idleCheckScheduled {
            idleCheckScheduled = true
            loop.perform {
                self.idleCheckScheduled = false
                self.closeIfIdle()
            }
        }
    }

    /// The socket is writable (or a final line was just queued): write, then close if that was
    /// all that was left to do. Control loop only.
    func flushFromEvent() {
        if let failure = writeQueued() {
            close(failure)
            return
        }
        updateInterest()
        closeIfIdle()
    }

    /// Writes what is queued until done or the socket is full. Returns the close reason if the
    /// write failed.
    private func writeQueued() -> CloseReason? {
        guard let fd = source?.fd else { return nil }
        var written = 0
        defer { if written > 0 { queuedBytes.wrappingSubtract(written, ordering: .relaxed) } }
        do {
            written = try outbound.drain { bytes throws(SyscallError) in try Socket.send(fd, from: bytes) }
        } catch {
            return .writeFailed(error.errno)
        }
        return nil
    }

    /// While draining: closes once every reply the client is owed has been written (or at once,
    /// for a final error line, when the senders are off). Control loop only.
    func closeIfIdle() {
        guard case .draining(let reason) = phase, outbound.isEmpty else { return }
        if pendingRequests == 0 || !isOpen { close(reason) }
    }
}
