/// `socket:` — the listening Unix socket.
///
/// Threading: a value. Any thread.
public struct SocketSettings: Sendable, Equatable {
    /// Absolute path (a socket-activated fd, if any, wins).
    public var path: String
    /// Permission bits, at most `0o777`.
    public var mode: UInt32
    /// The socket's group; `nil` keeps the daemon's.
    public var group: Principal?

    public init(path: String = "/run/accessoryd/accessoryd.sock", mode: UInt32 = 0o660, group: Principal? = nil) {
        self.path = path
        self.mode = mode
        self.group = group
    }
}

/// A user or group, by name or by numeric id.
///
/// Threading: a value. Any thread.
public enum Principal: Sendable, Hashable, CustomStringConvertible {
    case name(String)
    case id(UInt32)

    public var description: String {
        switch self {
        case .name(let name): name
        case .id(let id): String(id)
        }
    }
}
