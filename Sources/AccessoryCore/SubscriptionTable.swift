import ControlProtocol

/// The registry's subscriptions by client, with how many of them ask for `lines` and for
/// `traffic` kept as they change: a (un)subscribe asks "does anyone want lines or traffic?"
/// once, and scanning every subscription for it made subscribing n clients cost n² (and, times
/// the accessories, for lines).
///
/// Threading: a value owned by ``AccessoryRegistry``; device loop only.
struct SubscriptionTable {
    private(set) var byClient: [UInt64: AccessoryRegistry.Subscription] = [:]
    /// Subscriptions that include `lines`.
    private(set) var wantingLines = 0
    /// Subscriptions that include `traffic`.
    private(set) var wantingTraffic = 0

    subscript(client: UInt64) -> AccessoryRegistry.Subscription? {
        get { byClient[client] }
        set {
            if let old = byClient[client] { count(old, by: -1) }
            if let newValue { count(newValue, by: 1) }
            byClient[client] = newValue
        }
    }

    var values: Dictionary<UInt64, AccessoryRegistry.Subscription>.Values { byClient.values }

    private mutating func count(_ s: AccessoryRegistry.Subscription, by step: Int) {
        if s.events.contains(.lines) { wantingLines += step }
        if s.events.contains(.traffic) { wantingTraffic += step }
    }
}
