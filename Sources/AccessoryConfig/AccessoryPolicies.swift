/// `response:` — what ends a transaction.
///
/// Threading: a value. Any thread.
public struct ResponseRule: Sendable, Equatable {
    /// A Swift `Regex` (compile it with `try Regex(until)`); frames are collected until one
    /// matches. `nil`: the first frame is the response.
    public var until: String?
    /// The transaction timeout; `nil`: `limits.default_timeout_ms`.
    public var timeoutMs: Int?

    public init(until: String? = nil, timeoutMs: Int? = nil) {
        self.until = until
        self.timeoutMs = timeoutMs
    }
}

/// `reconnect:` — reopen back-off: `initialMs`, doubling up to `maxMs`.
///
/// Threading: a value. Any thread.
public struct ReconnectSettings: Sendable, Equatable {
    public var initialMs: Int
    public var maxMs: Int

    public init(initialMs: Int = 100, maxMs: Int = 5_000) {
        self.initialMs = initialMs
        self.maxMs = maxMs
    }
}

/// `access:` — who may use the accessory, checked against the client's `SO_PEERCRED`.
///
/// Both lists empty (the default): every client that can open the socket. Otherwise: the
/// listed users, members of the listed groups, root and the daemon's own user.
///
/// Threading: a value. Any thread.
public struct AccessPolicy: Sendable, Equatable {
    public var users: [Principal]
    public var groups: [Principal]

    public init(users: [Principal] = [], groups: [Principal] = []) {
        self.users = users
        self.groups = groups
    }

    /// Whether the lists restrict access at all.
    public var isRestricted: Bool { !users.isEmpty || !groups.isEmpty }
}
