extension DeviceStatusResult {
    /// One of the accessory's pty views in `device.status`: the view, or one that could not be
    /// made (`{path, error}`).
    ///
    /// Threading: a value. Any thread.
    public enum View: Sendable, Hashable, JSONObjectEncodable {
        case view(ViewStatus)
        case failed(path: String, error: String)

        public func encodeMembers(into object: inout JSONMembers) {
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
public struct ViewStatus: Sendable, Hashable, JSONObjectEncodable {
    /// The view's link.
    public var path: String
    /// The pty's slave device the link points to.
    public var pty: String
    public var mode: String
    /// Whether a program has it open.
    public var open: Bool
    /// The view's client id (as `clients.list` shows it).
    public var clientID: Int64
    public var uid: Int64
    public var gid: Int64
    /// The slave's mode, in octal.
    public var perm: String
    /// `exclusive` views only: what the view is doing.
    public var session: String?
    /// Bytes waiting for the program to read them.
    public var bufferedBytes: Int64
    public var counters: Counters

    public init(
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

    public func encodeMembers(into object: inout JSONMembers) {
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

    /// A view's counters since it was made.
    ///
    /// Threading: a value. Any thread.
    public struct Counters: Sendable, Hashable, JSONObjectEncodable {
        public var bytesToProgram: Int64 = 0
        public var bytesFromProgram: Int64 = 0
        public var chunksToProgram: Int64 = 0
        public var framesToDevice: Int64 = 0
        public var replies: Int64 = 0
        public var droppedBytes: Int64 = 0
        public var droppedChunks: Int64 = 0
        public var discardedBytes: Int64 = 0
        public var refusedFrames: Int64 = 0
        public var refusedBytes: Int64 = 0
        public var notOpenBytes: Int64 = 0
        public var opens: Int64 = 0
        public var closes: Int64 = 0
        public var sessions: Int64 = 0
        public var accessoryChanges: Int64 = 0

        public init() {}

        public func encodeMembers(into object: inout JSONMembers) {
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
public struct ViewSummary: Sendable, Hashable, JSONObjectEncodable {
    /// The accessory it shows.
    public var device: String
    public var path: String
    public var mode: String
    public var open: Bool
    public var clientID: Int64

    public init(device: String, path: String, mode: String, open: Bool, clientID: Int64) {
        self.device = device
        self.path = path
        self.mode = mode
        self.open = open
        self.clientID = clientID
    }

    public func encodeMembers(into object: inout JSONMembers) {
        object.add("device", device)
        object.add("path", path)
        object.add("mode", mode)
        object.add("open", open)
        object.add("client_id", clientID)
    }
}
