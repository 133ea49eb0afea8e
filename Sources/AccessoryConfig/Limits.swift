/// `limits:` — what one client or accessory may use.
///
/// Threading: a value. Any thread.
public struct Limits: Sendable, Equatable {
    /// Connected clients at once; more are refused.
    public var maxClients: Int
    /// The longest request line; a longer one disconnects the client.
    public var maxLineBytes: Int
    /// Unsent bytes queued for one client; more disconnects it (a client that stops reading).
    public var clientOutboundBytes: Int
    /// Requests queued per accessory; more fail with `queue_full`.
    public var queueDepth: Int
    /// A request's timeout when neither it nor its accessory gives one.
    public var defaultTimeoutMs: Int

    public init(
        maxClients: Int = 256,
        maxLineBytes: Int = 65_536,
        clientOutboundBytes: Int = 1_048_576,
        queueDepth: Int = 64,
        defaultTimeoutMs: Int = 2_000
    ) {
        self.maxClients = maxClients
        self.maxLineBytes = maxLineBytes
        self.clientOutboundBytes = clientOutboundBytes
        self.queueDepth = queueDepth
        self.defaultTimeoutMs = defaultTimeoutMs
    }
}
