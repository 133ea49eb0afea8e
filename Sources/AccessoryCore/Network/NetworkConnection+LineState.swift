import IOLoop
import TelnetComPort

/// NOTIFY-LINESTATE: the line state on request, and while the client's line-state mask asks for
/// some bit, a reading every ``Accessory/linePollInterval`` with a notification when a bit the
/// mask covers changed (only those bits are sent). Device loop only.
extension NetworkConnection {
    /// The line-state byte now (``ComPortLineState``); the driver's counters are kept as the
    /// baseline of the next reading's events.
    func currentLineState() -> UInt8 {
        let status = registry?.accessory(named: accessoryName)?.currentLineStatus() ?? SerialLineStatus()
        let byte = ComPortLineState.byte(status, previous: lastLineCounts)
        lastLineCounts = status.counts
        return byte
    }

    /// While the session runs and the mask asks for some bit: the reading now is the baseline
    /// (not reported), then each change of a masked bit is.
    func startLineStatePollIfAsked() {
        guard telnet != nil, port.lineStateMask != 0, case .attached = session, lineStatePoll == nil else { return }
        lastLineState = currentLineState()
        lineStatePoll = loop.scheduleTimer(after: Accessory.linePollInterval, repeating: Accessory.linePollInterval) {
            [weak self] in
            guard let self, !isClosed else { return }
            let byte = currentLineState()
            let before = lastLineState ?? byte
            lastLineState = byte
            guard (byte ^ before) & port.lineStateMask != 0 else { return }
            send(ComPortReply.byte(Code.notifyLineState, byte & port.lineStateMask))
        }
    }

    func stopLineStatePoll() {
        lineStatePoll?.cancel()
        lineStatePoll = nil
        lastLineState = nil
    }
}
