import ControlProtocol

extension AccessoryRegistry {
    /// The clients subscribed to `a`'s traffic that may use it (the same rule as for its data).
    /// Device loop.
    func trafficSubscribers(of a: Accessory) -> [any RequestOrigin] {
        subscriptions.values.filter { $0.events.contains(.traffic) && wants($0, a) }.map(\.origin)
    }

    /// The subscriptions changed: each accessory learns who gets its `device.traffic` now. Worked
    /// out eagerly, unlike data's subscribers, because the byte paths must find out by testing
    /// one reference (``Accessory/tap``). Device loop.
    func trafficSubscriptionsChanged() {
        let anyTraffic = subscriptions.wantingTraffic > 0
        guard anyTraffic || trafficWatched else { return }
        trafficWatched = anyTraffic
        for a in accessories { a.setTrafficSubscribers(trafficSubscribers(of: a)) }
    }
}
