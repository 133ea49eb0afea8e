import ControlProtocol
import IOLoop

/// Raw mode: after a request whose method ``ControlProtocol/Method/switchesToRawBytes`` (`attach`),
/// the connection reads nothing until that request is answered. On success the handler sends the
/// response and calls ``beginRawInput(_:)``: from then on every byte the client sends goes to the
/// sink as read, and what the handler sends with ``send(line:)`` reaches the client as it is. An
/// error response to it (``respond(id:error:)``) is its refusal: bytes that followed the request
/// line are read as requests again. The handler hears of the end as of any close.
extension ClientConnection {
    /// The `attach` succeeded (its response is sent): what the client sends from now on goes to
    /// `input`, on the control loop thread, in order, starting with any bytes that followed the
    /// request line. Any thread.
    package func beginRawInput(_ input: @escaping @Sendable ([UInt8]) -> Void) {
        loop.perform {
            guard self.state.move(to: .raw) != nil else { return }
            self.awaitedAttach = nil
            self.rawSink = input
            let early = self.takeBytesAfterAttach()
            if !early.isEmpty { input(early) }
            self.updateInterest()
        }
    }

    /// Stops or restarts reading raw input: back-pressure from the device the bytes go to.
    /// Any thread.
    package func pauseRawInput(_ paused: Bool) {
        loop.perform {
            guard self.state.current != .closed, self.rawInputPaused != paused else { return }
            self.rawInputPaused = paused
            self.updateInterest()
        }
    }

    /// A request read now may switch the connection to raw bytes: stop reading until it is
    /// answered. Control loop only.
    func awaitAttachAnswer(_ id: RequestID) {
        loop.assertInLoop()
        guard state.move(to: .awaitingAttach) != nil else { return }
        awaitedAttach = id
        updateInterest()
    }

    /// Request `id` was answered with an error: if it was the `attach` awaited, read requests
    /// again, starting with the bytes that followed it. Control loop only.
    func attachRefused(_ id: RequestID) {
        loop.assertInLoop()
        guard state.current == .awaitingAttach, awaitedAttach == id, state.move(to: .requests) != nil else { return }
        awaitedAttach = nil
        let early = takeBytesAfterAttach()
        if !early.isEmpty { consumeRequestBytes(early[...]) }
        updateInterest()
    }

    private func takeBytesAfterAttach() -> [UInt8] {
        defer { bytesAfterAttach = [] }
        return bytesAfterAttach
    }
}
