import ControlProtocol
import IOLoop
import SystemCalls

extension ConnectionCore {
    /// Takes ownership of the connected socket `fd` and starts watching it. Loop thread only.
    func start(adopting fd: CInt) {
        loop.preconditionInLoop()
        let owned = OwnedFD(adopting: fd)
        guard !tornDown else {
            owned.close()
            return
        }
        do {
            source = try loop.addSource(owning: owned, interest: .readable) { [self] events in
                handle(events)
            }
        } catch {
            end(with: .connectionFailed(path: path, reason: "cannot watch the socket: \(error)"))
            return
        }
        flush()
    }

    /// Closes the socket and finishes `events`. Idempotent. Loop thread only.
    func tearDown() {
        loop.preconditionInLoop()
        guard !tornDown else { return }
        tornDown = true
        source?.cancel()
        source = nil
        unsent = []
        if finishesEvents { events.finish() }
        tunnel?.release()
    }

    /// The socket ended or failed. Locally the daemon is gone; for a remote connection the ssh
    /// child is asked to finish, and the connection ends once it has, with what it said (calls
    /// in flight wait that long: ssh exits within its grace period). Loop thread only.
    func connectionLost() {
        loop.preconditionInLoop()
        guard let tunnel else {
            // What was written and not answered is lost with the daemon: never resent.
            // The link hears first, so that no call takes this socket as the one to use.
            if isOpen { onLost?(self) }
            end(with: .disconnected, inFlight: .daemonRestarted)
            return
        }
        guard !awaitingTunnel else { return }
        awaitingTunnel = true
        source?.cancel()
        source = nil
        tunnel.release()
        tunnel.onEnd { [self] reason in end(with: reason) }
    }

    /// Moves queued request bytes to the socket. Loop thread only.
    func flush() {
        loop.preconditionInLoop()
        let more = shared.withLock { state -> [UInt8] in
            state.flushQueued = false
            defer { state.outbound = [] }
            return state.outbound
        }
        guard !tornDown else { return }
        unsent.append(contentsOf: more)
        guard let source, !unsent.isEmpty else { return }
        var written = 0
        while written < unsent.count {
            let result: Result<IOResult<Int>, SyscallError> = unsent.withUnsafeBytes { bytes in
                do throws(SyscallError) {
                    return .success(
                        try Socket.send(source.fd, from: UnsafeRawBufferPointer(rebasing: bytes[written...]))
                    )
                } catch {
                    return .failure(error)
                }
            }
            switch result {
            case .success(.processed(let count)): written += count
            case .success(.wouldBlock):
                unsent.removeSubrange(0..<written)
                source.addInterest(.writable)
                return
            case .failure:
                connectionLost()  // EPIPE, ECONNRESET: the daemon (or ssh) is gone
                return
            }
        }
        unsent = []
        source.removeInterest(.writable)
    }

    private func handle(_ events: FDEvents) {
        if !events.isDisjoint(with: [.readable, .hangup, .error]) { readAvailable() }
        if events.contains(.writable) && !tornDown { flush() }
    }

    /// Reads what the socket has (a bounded number of reads, for fairness with other
    /// connections on the shared loop) and handles each complete line.
    private func readAvailable() {
        for _ in 0..<16 {
            guard let source, !tornDown else { return }
            let fd = source.fd
            let result: Result<IOResult<Int>, SyscallError> = readBuffer.withUnsafeMutableBytes { buffer in
                do throws(SyscallError) {
                    return .success(try FileIO.read(fd, into: buffer))
                } catch {
                    return .failure(error)
                }
            }
            switch result {
            case .success(.wouldBlock):
                return
            case .success(.processed(0)), .failure:
                connectionLost()  // end of stream, or ECONNRESET
                return
            case .success(.processed(let count)):
                let lines = readBuffer.withUnsafeBytes {
                    splitter.append(UnsafeRawBufferPointer(rebasing: $0[..<count]))
                }
                guard let lines else {
                    end(with: .protocolError("a line longer than \(ConnectionCore.maxLineLength) bytes"))
                    return
                }
                for line in lines where !tornDown { handleLine(line) }
            }
        }
    }

    private func handleLine(_ line: [UInt8]) {
        let message: ServerMessage
        do throws(MessageDecodingError) {
            message = try ServerMessage.decode(line)
        } catch {
            end(with: .protocolError(error.message))
            return
        }
        switch message {
        case .response(let response):
            if let continuation = claim(response) { continuation.resume(returning: .success(response)) }
        case .notification(let notification):
            deliver(notification)
        }
    }

    /// The caller waiting for `response`, removed from the table; nil when nobody waits for it.
    private func claim(_ response: Response) -> ResponseContinuation? {
        shared.withLock { state -> ResponseContinuation? in
            guard let id = response.id else {
                if state.nullIDWaiters.isEmpty {
                    state.unmatchedResponses += 1
                    return nil
                }
                return state.nullIDWaiters.removeFirst()
            }
            switch state.entries[id] {
            case .waiting(let continuation, _)?:
                state.entries[id] = nil
                return continuation
            case .ignored?:
                state.entries[id] = nil
                return nil
            default:
                state.unmatchedResponses += 1
                return nil
            }
        }
    }

    /// Hands a typed notification to `events`. Notifications this client does not know (a newer
    /// daemon's) or cannot decode are skipped, not fatal.
    private func deliver(_ notification: NotificationMessage) {
        guard let event = try? notification.event() else { return }
        if case .dropped = events.yield(event) {
            shared.withLock { $0.droppedEvents += 1 }
        }
    }
}
