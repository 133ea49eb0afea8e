import IOLoop

/// Raw mode: after a request whose method ``ControlProtocol/Method/switchesToRawBytes`` (`attach`),
/// the connection reads nothing until the handler decides. On success the handler calls
/// ``beginRawInput(_:)`` after sending the response: from then on every byte the client sends
/// goes to the sink as read, and what the handler sends with ``send(line:)`` reaches the client
/// as it is. On failure it sends the error and calls ``resumeRequests()``: bytes that followed
/// the request line are read as requests again. The handler hears of the end as of any close.
extension ClientConnection {
    /// The `attach` succeeded (its response is sent): what the client sends from now on goes to
    /// `input`, on the control loop thread, in order, starting with any bytes that followed the
    /// request line. Any thread.
    public func beginRawInput(_ input: @escaping @Sendable ([UInt8]) -> Void) {
        loop.perform {
            guard self.phase != .closed, case .awaitingRaw = self.inputMode else { return }
            self.inputMode = .raw(input)
            let early = self.bytesAfterAttach
            self.bytesAfterAttach = []
            if !early.isEmpty { input(early) }
            self.updateInterest()
        }
    }

    /// The `attach` failed (its error response is sent): the connection reads requests again,
    /// starting with any bytes that followed the request line. Any thread.
    public func resumeRequests() {
        loop.perform {
            guard self.phase != .closed, case .awaitingRaw = self.inputMode else { return }
            self.inputMode = .requests
            let early = self.bytesAfterAttach
            self.bytesAfterAttach = []
            if !early.isEmpty { self.consumeRequestBytes(early[...]) }
            self.updateInterest()
        }
    }

    /// Stops or restarts reading raw input: back-pressure from the device the bytes go to.
    /// Any thread.
    public func pauseRawInput(_ paused: Bool) {
        loop.perform {
            guard self.phase != .closed, self.rawInputPaused != paused else { return }
            self.rawInputPaused = paused
            self.updateInterest()
        }
    }
}

extension ClientConnection {
    var isAwaitingRaw: Bool {
        if case .awaitingRaw = inputMode { return true }
        return false
    }
}
