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
    /// `{path, pty, mode, open, client_id, uid, gid, perm, session?, buffered_bytes, counters}`.
    /// Device loop only.
    func statusJSON() -> JSONValue {
        var o: JSONObject = [:]
        o.append("path", .string(link.path))
        o.append("pty", .string(slavePath))
        o.append("mode", .string(settings.mode.rawValue))
        o.append("open", .bool(isOpen))
        o.append("client_id", .integer(Int64(clamping: clientID)))
        o.append("uid", .int(Int(ownerID)))
        o.append("gid", .int(Int(groupID)))
        o.append("perm", .string(String(settings.effectivePerm, radix: 8)))
        if settings.mode == .exclusive { o.append("session", .string(session.name)) }
        o.append("buffered_bytes", .int(output.count))
        let c = counters
        var n: JSONObject = [:]
        func add(_ key: String, _ value: UInt64) { n.append(key, .integer(Int64(clamping: value))) }
        add("bytes_to_program", c.bytesToProgram)
        add("bytes_from_program", c.bytesFromProgram)
        add("chunks_to_program", c.chunksToProgram)
        add("frames_to_device", c.framesToDevice)
        add("replies", c.replies)
        add("dropped_bytes", output.droppedBytes)
        add("dropped_chunks", output.droppedChunks)
        add("discarded_bytes", c.discardedBytes)
        add("refused_frames", c.refusedFrames)
        add("refused_bytes", c.refusedBytes)
        add("not_open_bytes", c.notOpenBytes)
        add("opens", c.opens)
        add("closes", c.closes)
        add("sessions", c.sessions)
        add("accessory_changes", c.accessoryChanges)
        o.append("counters", .object(n))
        return .object(o)
    }
}
