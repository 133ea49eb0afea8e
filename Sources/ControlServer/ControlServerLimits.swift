import SystemCalls

/// What one client may use, and how the listener backs off. The defaults match the daemon's
/// configuration defaults (`limits:` in accessoryd.yaml).
///
/// Threading: a value. Any thread.
public struct ControlServerLimits: Sendable, Equatable {
    /// Clients connected at once. One more is accepted, sent a one-line error and closed at once
    /// (so the kernel's listen queue never fills).
    public var maxClients: Int
    /// Clients of one uid connected at once; one more is refused like one over ``maxClients``.
    /// So one user cannot take every slot.
    public var maxConnectionsPerUID: Int
    /// Uids not held to ``maxConnectionsPerUID``: by default root and the server's own user, who
    /// may do anything with the daemon anyway.
    public var connectionLimitExemptUIDs: Set<UInt32>
    /// The longest request line, without its `\n` (and a `\r` before it). A longer line gets a
    /// final error line and the client is disconnected.
    public var maxLineBytes: Int
    /// Unsent bytes queued for one client, counting responses still on their way to the control
    /// loop. A client that lets more pile up (it stopped reading) is disconnected. A single line
    /// is always accepted into an empty queue, however long it is.
    public var maxOutboundBytes: Int
    /// The first pause after `accept` fails for lack of descriptors or memory; doubled after each
    /// further failure up to ``acceptRetryMaximum``, reset by a successful accept.
    public var acceptRetryInitial: Duration
    public var acceptRetryMaximum: Duration
    /// How long a final error line (after a too-long request line) may take to reach a client
    /// before the connection is closed anyway.
    public var lingerTimeout: Duration
    /// Request bytes read from all clients together in one turn of the loop (one wait for
    /// events). When they are spent, the other clients wait for the next turn, and the loop's
    /// other sources (the accessories, when the server shares the device loop) get theirs
    /// first. One turn's parsing is so bounded by this, plus one line per client that it began
    /// in an earlier turn. Each client reads at most its share (``InputBudget``).
    public var inputBytesPerTurn: Int

    public init(
        maxClients: Int = 256,
        maxConnectionsPerUID: Int = 64,
        connectionLimitExemptUIDs: Set<UInt32> = [0, UserDatabase.effectiveUserID],
        maxLineBytes: Int = 65_536,
        maxOutboundBytes: Int = 1_048_576,
        acceptRetryInitial: Duration = .milliseconds(10),
        acceptRetryMaximum: Duration = .seconds(1),
        lingerTimeout: Duration = .seconds(1),
        inputBytesPerTurn: Int = 65_536
    ) {
        precondition(
            maxClients >= 1 && maxConnectionsPerUID >= 1 && maxLineBytes >= 1 && maxOutboundBytes >= 1
                && inputBytesPerTurn >= 1,
            "limits must be positive"
        )
        precondition(acceptRetryInitial > .zero && acceptRetryMaximum >= acceptRetryInitial, "bad accept back-off")
        self.maxClients = maxClients
        self.maxConnectionsPerUID = maxConnectionsPerUID
        self.connectionLimitExemptUIDs = connectionLimitExemptUIDs
        self.maxLineBytes = maxLineBytes
        self.maxOutboundBytes = maxOutboundBytes
        self.acceptRetryInitial = acceptRetryInitial
        self.acceptRetryMaximum = acceptRetryMaximum
        self.lingerTimeout = lingerTimeout
        self.inputBytesPerTurn = inputBytesPerTurn
    }
}
