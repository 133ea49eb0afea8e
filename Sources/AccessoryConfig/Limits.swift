/// `limits:` — what one client or accessory may use. Every default is safe on a machine shared
/// with other (possibly hostile) local users: no client can hold more than a bounded share of
/// the daemon's memory, client slots or an accessory's time.
///
/// Threading: a value. Any thread.
public struct Limits: Sendable, Equatable {
    /// Connected clients at once; more are refused.
    public var maxClients: Int
    /// Connections beyond `maxClients` that only root and the daemon's own user may take: when
    /// other users hold every ordinary slot, an administrator can still connect, see who they
    /// are (`accessoryctl clients`) and disconnect them.
    public var reservedConnections: Int
    /// A connection that has not completed a request line this long after connecting is closed:
    /// silent connections cost their user nothing and would hold slots for ever. Connections
    /// that completed a request may then be silent as long as they like (they wait for
    /// notifications, a lock, an attached accessory).
    public var idleConnectionTimeoutMs: Int
    /// The longest request line; a longer one disconnects the client.
    public var maxLineBytes: Int
    /// Unsent bytes queued for one client; more disconnects it (a client that stops reading).
    public var clientOutboundBytes: Int
    /// Requests waiting per accessory: queued, or parked behind another client's lock. More fail
    /// with `queue_full`.
    public var queueDepth: Int
    /// A request's timeout when neither it nor its accessory gives one.
    public var defaultTimeoutMs: Int
    /// Requests one client may have unanswered at once, over all accessories (queued, parked
    /// behind a lock, waiting for a ready accessory, executing). More fail with `queue_full`.
    /// 256 is four full queues' worth (`queue_depth` 64): far more than any pipelining client
    /// gains from, and it bounds what one client holds to a few hundred small objects.
    public var maxRequestsPerClient: Int
    /// Connections one uid may have at once. Root and the daemon's own user are exempt (they
    /// may do anything anyway); 64 leaves three quarters of the default 256 slots to others.
    public var maxConnectionsPerUID: Int
    /// The longest `lease_ms` a `lock` may ask for; a longer one is refused (not shortened: a
    /// client must know when its lease ends). A holder renews by sending `lock` again.
    public var maxLeaseMs: Int
    /// The lease of a `lock` that gives no `lease_ms`: a lock is never held for ever by a client
    /// that forgot it.
    public var defaultLeaseMs: Int
    /// An `attach` with no bytes either way for this long ends: the client gets a notice and is
    /// disconnected, and the accessory is free for the others.
    public var attachIdleMs: Int
    /// TCP connections at once per network listener: one holds the session, the others are
    /// told so and closed, so a few suffice; more are refused without a word.
    public var listenerMaxConnections: Int
    /// Bytes a network listener's connection may let wait unread (the device's output); more
    /// disconnects it: the client is not reading.
    public var listenerOutboundBytes: Int
    /// The longest telnet subnegotiation an rfc2217 client may send; longer closes the
    /// connection. RFC 2217's longest is a signature: 256 bytes is room for any honest one.
    public var telnetMaxSubnegotiationBytes: Int

    public init(
        maxClients: Int = 256,
        reservedConnections: Int = 4,
        idleConnectionTimeoutMs: Int = 10_000,
        maxLineBytes: Int = 65_536,
        clientOutboundBytes: Int = 1_048_576,
        queueDepth: Int = 64,
        defaultTimeoutMs: Int = 2_000,
        maxRequestsPerClient: Int = 256,
        maxConnectionsPerUID: Int = 64,
        maxLeaseMs: Int = 3_600_000,
        defaultLeaseMs: Int = 600_000,
        attachIdleMs: Int = 3_600_000,
        listenerMaxConnections: Int = 8,
        listenerOutboundBytes: Int = 1_048_576,
        telnetMaxSubnegotiationBytes: Int = 256
    ) {
        self.maxClients = maxClients
        self.reservedConnections = reservedConnections
        self.idleConnectionTimeoutMs = idleConnectionTimeoutMs
        self.maxLineBytes = maxLineBytes
        self.clientOutboundBytes = clientOutboundBytes
        self.queueDepth = queueDepth
        self.defaultTimeoutMs = defaultTimeoutMs
        self.maxRequestsPerClient = maxRequestsPerClient
        self.maxConnectionsPerUID = maxConnectionsPerUID
        self.maxLeaseMs = maxLeaseMs
        self.defaultLeaseMs = defaultLeaseMs
        self.attachIdleMs = attachIdleMs
        self.listenerMaxConnections = listenerMaxConnections
        self.listenerOutboundBytes = listenerOutboundBytes
        self.telnetMaxSubnegotiationBytes = telnetMaxSubnegotiationBytes
    }
}
