/// Bounds on numeric params; a value outside them is an invalid-params error.
///
/// Threading: constants. Any thread.
package enum ParamLimits {
    /// The longest `timeout_ms`, `wait_ms` or `lease_ms`: one day.
    package static let maxMilliseconds: Int64 = 86_400_000
    /// The most frames one `read` may ask for.
    package static let maxFrames: Int64 = 65_536
}

/// `{device}`: for `device.status` and `unlock`.
///
/// Threading: a value. Any thread.
public struct DeviceParams: Sendable, Hashable {
    /// The accessory's configured name.
    public var device: String

    public init(device: String) { self.device = device }
}

/// `{device, data | data_base64, timeout_ms?, wait_ms?}`: for `transact` and `write`.
///
/// Threading: a value. Any thread.
public struct TransferParams: Sendable, Hashable {
    public var device: String
    /// The frame to send, before framing (a line terminator, SLIP escaping, … is added by the
    /// daemon). Given on the wire as `data` (UTF-8 text) or `data_base64`, never both.
    public var data: [UInt8]
    /// How long the operation may take once it starts (1 ... one day); `nil` means the
    /// accessory's `response.timeout_ms` or `limits.default_timeout_ms`.
    public var timeoutMs: Int64?
    /// How long the request may wait for its turn (the accessory's queue, another client's
    /// lock) before failing with `timed_out` (0 ... one day; 0 = fail at once if it cannot start
    /// at once); `nil` means wait as long as the queue takes.
    public var waitMs: Int64?

    public init(device: String, data: [UInt8], timeoutMs: Int64? = nil, waitMs: Int64? = nil) {
        self.device = device
        self.data = data
        self.timeoutMs = timeoutMs
        self.waitMs = waitMs
    }
}

/// `{device, timeout_ms?, max_frames?}`: for `read`.
///
/// Threading: a value. Any thread.
public struct ReadParams: Sendable, Hashable {
    public var device: String
    /// How long to wait for the first frame (1 ... one day).
    public var timeoutMs: Int64?
    /// The most frames to return (1 ... ``ParamLimits/maxFrames``).
    public var maxFrames: Int64?

    public init(device: String, timeoutMs: Int64? = nil, maxFrames: Int64? = nil) {
        self.device = device
        self.timeoutMs = timeoutMs
        self.maxFrames = maxFrames
    }
}

/// The kinds of notification a client can subscribe to.
///
/// Threading: a value. Any thread.
public enum EventKind: String, Sendable, Hashable, CaseIterable {
    /// `device.data`: frames no transaction claimed (or that match `unsolicited`).
    case data
    /// `device.state`: state changes.
    case state
    /// `device.traffic`: every byte to and from the accessory (``TrafficRecord``). Only when
    /// asked for by name: it costs the daemon work on every read and write.
    case traffic
    /// `device.lines`: the modem input lines changed (polled while someone subscribes). Only
    /// when asked for by name: it costs an ioctl every 50 ms per accessory.
    case lines

    /// What a `subscribe` without `events` gives: data and state, not traffic or lines.
    public static let defaultKinds: Set<EventKind> = [.data, .state]
}

/// `{device?, events?}`: for `subscribe` and `unsubscribe`.
///
/// Threading: a value. Any thread.
public struct SubscriptionParams: Sendable, Hashable {
    /// One accessory, or `nil` for all the client may see.
    public var device: String?
    /// A non-empty set, or `nil` for ``EventKind/defaultKinds`` (`subscribe`) or all kinds
    /// (`unsubscribe`).
    public var events: Set<EventKind>?

    public init(device: String? = nil, events: Set<EventKind>? = nil) {
        self.device = device
        self.events = events
    }
}

/// `{device, timeout_ms?, lease_ms?}`: for `lock`.
///
/// Threading: a value. Any thread.
public struct LockParams: Sendable, Hashable {
    public var device: String
    /// How long to wait for the lock (1 ... one day).
    public var timeoutMs: Int64?
    /// How long the lease lasts unless renewed or released (1 ... one day).
    public var leaseMs: Int64?

    public init(device: String, timeoutMs: Int64? = nil, leaseMs: Int64? = nil) {
        self.device = device
        self.timeoutMs = timeoutMs
        self.leaseMs = leaseMs
    }
}

/// `{id}`: for `cancel`; the id of an earlier request on the same connection.
///
/// Threading: a value. Any thread.
public struct CancelParams: Sendable, Hashable {
    public var id: RequestID

    public init(id: RequestID) { self.id = id }
}

/// `{device, wait_ms?}`: for `attach`.
///
/// Threading: a value. Any thread.
public struct AttachParams: Sendable, Hashable {
    public var device: String
    /// How long to wait for the accessory (its queue, another client's lock) before failing
    /// with `timed_out` (0 ... one day); `nil` means as long as that takes.
    public var waitMs: Int64?

    public init(device: String, waitMs: Int64? = nil) {
        self.device = device
        self.waitMs = waitMs
    }
}

/// `{id}`: for `client.disconnect`; a client's id as `clients.list` shows it.
///
/// Threading: a value. Any thread.
public struct ClientParams: Sendable, Hashable {
    public var id: UInt64

    public init(id: UInt64) { self.id = id }
}
