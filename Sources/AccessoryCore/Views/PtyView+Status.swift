import ControlProtocol

extension PtyView {
    /// The view in `device.status`. Device loop only.
    func status() -> ViewStatus {
        var n = counters
        n.droppedBytes = output.droppedBytes
        n.droppedChunks = output.droppedChunks
        return ViewStatus(
            path: link.path,
            pty: slavePath,
            mode: settings.mode.rawValue,
            open: isOpen,
            clientID: Int64(clamping: clientID),
            uid: Int64(ownerID),
            gid: Int64(groupID),
            perm: String(settings.effectivePerm, radix: 8),
            session: settings.mode == .exclusive ? session.name : nil,
            bufferedBytes: Int64(output.count),
            counters: n
        )
    }
}
