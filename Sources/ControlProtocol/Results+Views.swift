import JSONCodec

extension DeviceStatusResult {
    /// One of the accessory's pty views in `device.status`: the view, or one that could not be
    /// made (`{path, error}`).
    ///
    /// Threading: a value. Any thread.
    package enum View: Sendable, Hashable, JSONObjectEncodable {
        case view(ViewStatus)
        case failed(path: String, error: String)

        package func encodeMembers(into object: inout JSONMembers) {
            switch self {
            case .view(let status): status.encodeMembers(into: &object)
            case .failed(let path, let error):
                object.add("path", path)
                object.add("error", error)
            }
        }
    }
}

/// A pty view in `device.status`:
/// `{path, pty, mode, open, client_id, uid, gid, perm, session?, buffered_bytes, counters}`.
///
/// Threading: a value. Any thread.
package struct ViewStatus: Sendable, Hashable, JSONObjectEncodable {
    /// The view's link.
    package var path: String
    /// The pty's slave device the link points to.
    package var pty: String
    package var mode: String
    /// Whether a program has it open.
    package var open: Bool
    /// The view's client id (as `clients.list` shows it).
    package var clientID: Int64
    package var uid: Int64
    package var gid: Int64
    /// The slave's mode, in octal.
    package var perm: String
    /// `exclusive` views only: what the view is doing.
    package var session: String?
    /// Bytes waiting for the program to read them.
    package var bufferedBytes: Int64
    package var counters: Counters

    package init(
        path: String,
        pty: String,
        mode: String,
        open: Bool,
        clientID: Int64,
        uid: Int64,
        gid: Int64,
        perm: String,
        session: String?,
        bufferedBytes: Int64,
        counters: Counters
    ) {
        self.path = path
        self.pty = pty
        self.mode = mode
        self.open = open
        self.clientID = clientID
        self.uid = uid
        self.gid = gid
        self.perm = perm
        self.session = session
        self.bufferedBytes = bufferedBytes
        self.counters = counters
    }

    package func encodeMembers(into object: inout JSONMembers) {
        object.add("path", path)
        object.add("pty", pty)
        object.add("mode", mode)
        object.add("open", open)
        object.add("client_id", clientID)
        object.add("uid", uid)
        object.add("gid", gid)
        object.add("perm", perm)
        if let session { object.add("session", session) }
        object.add("buffered_bytes", bufferedBytes)
        object.add("counters", counters)
    }

    /// A view's counters since it was made. AccessoryCore counts into this value itself, but for
    /// the drops, which the view's output buffer keeps and the status copies in.
    ///
    /// Threading: a value. Any thread.
    package struct Counters: Sendable, Hashable, JSONObjectEncodable {
        /// Bytes written to the pty (read by the program).
        package var bytesToProgram: UInt64 = 0
        /// Bytes read from the pty (written by the program).
        package var bytesFromProgram: UInt64 = 0
        /// Frames (or raw reads) queued for the program.
        package var chunksToProgram: UInt64 = 0
        /// `shared`: frames sent as requests; `exclusive`: writes of raw bytes to the device.
        package var framesToDevice: UInt64 = 0
        /// `shared`: reply frames written back to the view.
        package var replies: UInt64 = 0
        /// Dropped for a program that did not read (the output buffer's figures).
        package var droppedBytes: UInt64 = 0
        package var droppedChunks: UInt64 = 0
        /// `monitor`: bytes the program wrote, discarded.
        package var discardedBytes: UInt64 = 0
        /// Frames (or raw writes) refused: the accessory absent, locked by another client too
        /// long, a request failed or timed out, a frame too large.
        package var refusedFrames: UInt64 = 0
        /// `exclusive`: bytes that waited for an `attach` that was refused.
        package var refusedBytes: UInt64 = 0
        /// Data for the program while none had the view open (not kept).
        package var notOpenBytes: UInt64 = 0
        package var opens: UInt64 = 0
        package var closes: UInt64 = 0
        /// `exclusive`: raw sessions begun.
        package var sessions: UInt64 = 0
        /// The accessory came or went.
        package var accessoryChanges: UInt64 = 0

        package init() {}

        package func encodeMembers(into object: inout JSONMembers) {
            object.add("bytes_to_program", bytesToProgram)
            object.add("bytes_from_program", bytesFromProgram)
            object.add("chunks_to_program", chunksToProgram)
            object.add("frames_to_device", framesToDevice)
            object.add("replies", replies)
            object.add("dropped_bytes", droppedBytes)
            object.add("dropped_chunks", droppedChunks)
            object.add("discarded_bytes", discardedBytes)
            object.add("refused_frames", refusedFrames)
            object.add("refused_bytes", refusedBytes)
            object.add("not_open_bytes", notOpenBytes)
            object.add("opens", opens)
            object.add("closes", closes)
            object.add("sessions", sessions)
            object.add("accessory_changes", accessoryChanges)
        }
    }
}

/// A pty view in `daemon.status`: `{device, path, mode, open, client_id}`.
///
/// Threading: a value. Any thread.
package struct ViewSummary: Sendable, Hashable, JSONObjectEncodable {
    /// The accessory it shows.
    package var device: String
    package var path: String
    package var mode: String
    package var open: Bool
    package var clientID: Int64

    package init(device: String, path: String, mode: String, open: Bool, clientID: Int64) {
        self.device = device
        self.path = path
        self.mode = mode
        self.open = open
        self.clientID = clientID
    }

    package func encodeMembers(into object: inout JSONMembers) {
        object.add("device", device)
        object.add("path", path)
        object.add("mode", mode)
        object.add("open", open)
        object.add("client_id", clientID)
    }
}
