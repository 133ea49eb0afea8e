import SystemCalls

/// What one client may use, and how the listener backs off. The defaults match the daemon's
/// configuration defaults (`limits:` in accessoryd.yaml).
///
/// Threading: a value. Any thread.
package struct ControlServerLimits: Sendable, Equatable {
    /// Clients connected at once. One more is accepted, sent a one-line error and closed at once
    /// (so the kernel's listen queue never fills).
    package var maxClients: Int
    /// Clients of one uid connected at once; one more is refused like one over ``maxClients``.
    /// So one user cannot take every slot.
    package var maxConnectionsPerUID: Int
    /// Uids not held to ``maxConnectionsPerUID``, and the only ones that may use the
    /// ``reservedConnections``: by default root and the server's own user, who may do anything
    /// with the daemon anyway.
    package var connectionLimitExemptUIDs: Set<UInt32>
    /// Connections beyond ``maxClients`` that only the ``connectionLimitExemptUIDs`` may take: when
    /// other users hold every ordinary slot, an administrator can still connect to see who they
    /// are and disconnect them.
    package var reservedConnections: Int
    /// How long a connection may stay open without completing its first request line; it is
    /// then closed. A connection that has completed one request may be silent for as long as it
    /// likes (it waits for notifications, a lock, an attached device). `nil`: no limit.
    package var idleConnectionTimeout: Duration?
    /// Answers one connection's batches and notifications may be waiting for at once (entries
    /// of its ``ReplyRoutes``). A batch that would pass it is refused whole, a notification over
    /// it is not executed. The daemon sets it to `limits.max_requests_per_client`, which already
    /// bounds the requests a client has unanswered.
    package var maxRoutedReplies: Int
    /// The longest request line, without its `\n` (and a `\r` before it). A longer line gets a
    /// final error line and the client is disconnected.
    package var maxLineBytes: Int
    /// Bytes the server holds for one client: replies not yet written (counting those still on
    /// their way to the control loop) and the answers of batch elements waiting for the rest of
    /// their batch. Counted from the first byte: a line that would take the count past this
    /// disconnects the client (it stopped reading); a reply longer than this alone is not sent
    /// but replaced by an error (``ClientConnection/replyTooLargeError(bytes:limit:)``); and a
    /// batch whose known answers alone pass it is refused before any element runs.
    package var maxOutboundBytes: Int
    /// The first pause after `accept` fails for lack of descriptors or memory; doubled after each
    /// further failure up to ``acceptRetryMaximum``, reset by a successful accept.
    package var acceptRetryInitial: Duration
    package var acceptRetryMaximum: Duration
    /// How long a final error line (after a too-long request line) may take to reach a client
    /// before the connection is closed anyway.
    package var lingerTimeout: Duration
    /// Request bytes read from all clients together in one turn of the loop (one wait for
    /// events). When they are spent, the other clients wait for the next turn, and the loop's
    /// other sources (the accessories, when the server shares the device loop) get theirs
    /// first. One turn's parsing is so bounded by this, plus one line per client that it began
    /// in an earlier turn. Each client reads at most its share (``InputBudget``).
    package var inputBytesPerTurn: Int

    package init(
        maxClients: Int = 256,
        maxConnectionsPerUID: Int = 64,
        connectionLimitExemptUIDs: Set<UInt32> = [0, UserDatabase.effectiveUserID],
        reservedConnections: Int = 4,
        idleConnectionTimeout: Duration? = .seconds(10),
        maxRoutedReplies: Int = 256,
        maxLineBytes: Int = 65_536,
        maxOutboundBytes: Int = 1_048_576,
        acceptRetryInitial: Duration = .milliseconds(10),
        acceptRetryMaximum: Duration = .seconds(1),
        lingerTimeout: Duration = .seconds(1),
        inputBytesPerTurn: Int = 65_536
    ) {
        precondition(
            maxClients >= 1 && maxConnectionsPerUID >= 1 && maxLineBytes >= 1 && maxOutboundBytes >= 1
                && inputBytesPerTurn >= 1 && reservedConnections >= 0 && maxRoutedReplies >= 1,
            "limits must be positive"
        )
        precondition(acceptRetryInitial > .zero && acceptRetryMaximum >= acceptRetryInitial, "bad accept back-off")
        self.maxClients = maxClients
        self.maxConnectionsPerUID = maxConnectionsPerUID
        self.connectionLimitExemptUIDs = connectionLimitExemptUIDs
        self.reservedConnections = reservedConnections
        self.idleConnectionTimeout = idleConnectionTimeout
        self.maxRoutedReplies = maxRoutedReplies
        self.maxLineBytes = maxLineBytes
        self.maxOutboundBytes = maxOutboundBytes
        self.acceptRetryInitial = acceptRetryInitial
        self.acceptRetryMaximum = acceptRetryMaximum
        self.lingerTimeout = lingerTimeout
        self.inputBytesPerTurn = inputBytesPerTurn
    }
}
