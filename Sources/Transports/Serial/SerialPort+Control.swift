import IOLoop
import SystemCalls

/// Modem lines, break, flush and drain. Each says ``ControlOutcome/unsupported`` where the
/// device has no such control (`ENOTTY`, as on ptys), and throws only for real failures.
/// Timed operations never block the loop: they use ``scheduler``'s timers and complete on a later
/// iteration (never from inside the call). Loop thread only.
extension SerialPort {
    /// Asserts (`true`) or de-asserts `lines` (DTR and/or RTS). Loop thread only.
    /// A device without modem lines (a pty) reports them to ``modemLineStandIn`` when it has one.
    @discardableResult
    public func setModemLines(_ lines: ModemLines, asserted: Bool) throws(TransportError) -> ControlOutcome {
        let fd = try openDescriptor()
        let outcome = try control("\(asserted ? "assert" : "de-assert") \(lines)") { () throws(SyscallError) in
            try Termios.setModemLines(fd, Termios.ModemLines(rawValue: lines.rawValue), on: asserted)
        }
        guard outcome == .unsupported, let standIn = modemLineStandIn else { return outcome }
        try standIn.set(lines, asserted: asserted)
        return .done
    }

    /// Reads the modem lines (the stand-in's outputs on a device without any). Loop thread only.
    public func modemLines() throws(TransportError) -> ModemLineStatus {
        let fd = try openDescriptor()
        do {
            return .lines(ModemLines(rawValue: try Termios.modemLines(fd).rawValue))
        } catch  where error.errno == .inappropriateIOCTLForDevice {
            return modemLineStandIn.map { .lines($0.lines) } ?? .unsupported
        } catch {
            throw .system(context: "cannot read the modem lines of \(path)", error)
        }
    }

    /// Sets `lines` to `asserted` for `duration`, then to the opposite (a DTR pulse resets many
    /// microcontroller boards). `completion` runs on the loop once the lines are back, or at once
    /// (on the next iteration) if unsupported or failed. Loop thread only.
    public func pulse(
        _ lines: ModemLines,
        asserted: Bool = false,
        for duration: Duration,
        completion: @escaping (Result<ControlOutcome, TransportError>) -> Void
    ) {
        let first: Result<ControlOutcome, TransportError> = Result { () throws(TransportError) in
            try setModemLines(lines, asserted: asserted)
        }
        guard case .success(.done) = first else { return later(first, completion) }
        scheduler.scheduleTimer(after: duration) { [self] in
            completion(Result { () throws(TransportError) in try setModemLines(lines, asserted: !asserted) })
        }
    }

    /// Holds the line in the break condition for `duration` (`TIOCSBRK`, a timer, `TIOCCBRK`).
    /// Loop thread only.
    public func sendBreak(
        for duration: Duration = .milliseconds(250),
        completion: @escaping (Result<ControlOutcome, TransportError>) -> Void
    ) {
        let first: Result<ControlOutcome, TransportError> = Result { () throws(TransportError) in
            try setBreakCondition(true)
        }
        guard case .success(.done) = first else { return later(first, completion) }
        scheduler.scheduleTimer(after: duration) { [self] in
            completion(Result { () throws(TransportError) in try setBreakCondition(false) })
        }
    }

    /// Starts (`true`) or ends the break condition, for as long as the caller says (RFC 2217's
    /// BREAK on and off: the client times it). A device with a modem-line stand-in (a pty) also
    /// reports it there. Loop thread only.
    @discardableResult
    public func setBreakCondition(_ on: Bool) throws(TransportError) -> ControlOutcome {
        let fd = try openDescriptor()
        let outcome = try control(on ? "start a break" : "end a break") { () throws(SyscallError) in
            try Termios.setBreak(fd, on: on)
        }
        // A pty takes the ioctl and does nothing: its stand-in reports the break instead.
        guard let standIn = modemLineStandIn else { return outcome }
        try standIn.setBreak(on)
        return .done
    }

    /// Discards data received but not read (`.input`), written but not transmitted (`.output`;
    /// the channel's own queue too), or both. Loop thread only.
    @discardableResult
    public func flush(_ queue: Termios.FlushQueue) throws(TransportError) -> ControlOutcome {
        let fd = try openDescriptor()
        if queue != .input { channel.discardOutbound() }
        return try control("flush") { () throws(SyscallError) in try Termios.flush(fd, queue) }
    }

    /// Waits, without blocking the loop, until everything written has left: first the channel's
    /// queue, then the kernel's output queue (`TIOCOUTQ`, polled with a growing interval up to
    /// 50 ms). `.unsupported` when the device cannot report its output queue; a timeout is
    /// ``TransportError/timedOut(operation:path:)``. Loop thread only.
    public func drain(timeout: Duration, completion: @escaping (Result<ControlOutcome, TransportError>) -> Void) {
        let deadline = scheduler.now + timeout
        pollDrain(deadline: deadline, interval: .milliseconds(1), completion: completion)
    }

    private func pollDrain(
        deadline: LoopInstant,
        interval: Duration,
        completion: @escaping (Result<ControlOutcome, TransportError>) -> Void
    ) {
        guard let fd = channel.fileDescriptor else { return later(.failure(.closed), completion) }
        if channel.queuedOutboundBytes == 0 {
            do {
                if try Termios.outputQueued(fd) == 0 { return later(.success(.done), completion) }
            } catch  where error.errno == .inappropriateIOCTLForDevice {
                return later(.success(.unsupported), completion)
            } catch {
                return later(.failure(.system(context: "cannot read the output queue of \(path)", error)), completion)
            }
        }
        guard scheduler.now < deadline else {
            return later(.failure(.timedOut(operation: "drain", path: path)), completion)
        }
        let next = min(interval * 2, .milliseconds(50))
        scheduler.scheduleTimer(after: interval) { [self] in
            pollDrain(deadline: deadline, interval: next, completion: completion)
        }
    }

    // MARK: - Helpers

    private func openDescriptor() throws(TransportError) -> CInt {
        channel.loop.preconditionInLoop()
        guard let fd = channel.fileDescriptor else { throw .closed }
        return fd
    }

    /// Runs one ioctl: `ENOTTY` is "unsupported", other errors are failures.
    private func control(_ what: String, _ body: () throws(SyscallError) -> Void) throws(TransportError)
        -> ControlOutcome
    {
        do {
            try body()
            return .done
        } catch  where error.errno == .inappropriateIOCTLForDevice {
            return .unsupported
        } catch {
            throw .system(context: "cannot \(what) on \(path)", error)
        }
    }

    /// Delivers `result` on the next loop iteration, so that completions never run inside the call.
    private func later(
        _ result: Result<ControlOutcome, TransportError>,
        _ completion: @escaping (Result<ControlOutcome, TransportError>) -> Void
    ) {
        scheduler.scheduleTimer(after: .zero) { completion(result) }
    }
}
