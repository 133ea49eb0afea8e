import ControlProtocol

/// A view's counters, from its creation. A value. Device loop only.
struct ViewCounters {
    /// Bytes written to the pty (read by the program).
    var bytesToProgram: UInt64 = 0
    /// Bytes read from the pty (written by the program).
    var bytesFromProgram: UInt64 = 0
    /// Frames (or raw reads) queued for the program.
    var chunksToProgram: UInt64 = 0
    /// `shared`: frames sent as requests; `exclusive`: writes of raw bytes to the device.
    var framesToDevice: UInt64 = 0
    /// `shared`: reply frames written back to the view.
    var replies: UInt64 = 0
    /// `monitor`: bytes the program wrote, discarded.
    var discardedBytes: UInt64 = 0
    /// Frames (or raw writes) refused: the accessory absent, locked by another client too long,
    /// a request failed or timed out, a frame too large.
    var refusedFrames: UInt64 = 0
    /// `exclusive`: bytes that waited for an `attach` that was refused.
    var refusedBytes: UInt64 = 0
    /// Data for the program while none had the view open (not kept).
    var notOpenBytes: UInt64 = 0
    var opens: UInt64 = 0
    var closes: UInt64 = 0
    /// `exclusive`: raw sessions begun.
    var sessions: UInt64 = 0
    /// The accessory came or went.
    var accessoryChanges: UInt64 = 0
}

extension PtyView {
    /// The view in `device.status`. Device loop only.
    func status() -> ViewStatus {
        let c = counters
        var n = ViewStatus.Counters()
        n.bytesToProgram = Int64(clamping: c.bytesToProgram)
        n.bytesFromProgram = Int64(clamping: c.bytesFromProgram)
        n.chunksToProgram = Int64(clamping: c.chunksToProgram)
        n.framesToDevice = Int64(clamping: c.framesToDevice)
        n.replies = Int64(clamping: c.replies)
        n.droppedBytes = Int64(clamping: output.droppedBytes)
        n.droppedChunks = Int64(clamping: output.droppedChunks)
        n.discardedBytes = Int64(clamping: c.discardedBytes)
        n.refusedFrames = Int64(clamping: c.refusedFrames)
        n.refusedBytes = Int64(clamping: c.refusedBytes)
        n.notOpenBytes = Int64(clamping: c.notOpenBytes)
        n.opens = Int64(clamping: c.opens)
        n.closes = Int64(clamping: c.closes)
        n.sessions = Int64(clamping: c.sessions)
        n.accessoryChanges = Int64(clamping: c.accessoryChanges)
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
