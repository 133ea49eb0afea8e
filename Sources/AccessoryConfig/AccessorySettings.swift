/// One entry of `accessories:`.
///
/// Threading: a value. Any thread.
public struct AccessorySettings: Sendable, Equatable {
    /// Unique, `[a-z0-9_.-]{1,64}`: what clients name in requests.
    public var name: String
    /// How to find it.
    public var source: AccessorySource
    /// Line settings (serial devices and simulated ptys).
    public var serial: SerialLineSettings
    public var framing: FramingSettings
    public var response: ResponseRule
    /// Regular expressions (Swift `Regex` syntax) for frames that go to subscribers even when
    /// a transaction is waiting.
    public var unsolicited: [String]
    public var resync: ResyncSettings
    public var reconnect: ReconnectSettings
    public var access: AccessPolicy
    /// A trace file of the accessory's traffic, or `nil` for none.
    public var trace: TraceSettings?
    /// A disabled accessory is listed (state `disabled`) but never opened.
    public var enabled: Bool
    /// Pseudo-terminals that show the accessory to programs that only open ttys.
    public var views: [ViewSettings]
    /// TCP listeners on loopback (RFC 2217 or raw) that share the accessory with network tools.
    public var network: [NetworkListenerSettings]

    public init(
        name: String,
        source: AccessorySource,
        serial: SerialLineSettings = SerialLineSettings(),
        framing: FramingSettings = FramingSettings(),
        response: ResponseRule = ResponseRule(),
        unsolicited: [String] = [],
        resync: ResyncSettings = ResyncSettings(),
        reconnect: ReconnectSettings = ReconnectSettings(),
        access: AccessPolicy = AccessPolicy(),
        trace: TraceSettings? = nil,
        enabled: Bool = true,
        views: [ViewSettings] = [],
        network: [NetworkListenerSettings] = []
    ) {
        self.name = name
        self.source = source
        self.serial = serial
        self.framing = framing
        self.response = response
        self.unsolicited = unsolicited
        self.resync = resync
        self.reconnect = reconnect
        self.access = access
        self.trace = trace
        self.enabled = enabled
        self.views = views
        self.network = network
    }
}
