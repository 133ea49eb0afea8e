import JSONCodec

/// The result of `lock`: `{"locked":true,"device":…,"lease_ms":…}`.
///
/// Threading: a value. Any thread.
package struct LockResult: Sendable, Hashable, JSONObjectEncodable {
    package var device: String
    /// How long the lease lasts from the grant.
    package var leaseMs: Int64

    package init(device: String, leaseMs: Int64) {
        self.device = device
        self.leaseMs = leaseMs
    }

    package func encodeMembers(into object: inout JSONMembers) {
        object.add("locked", true)
        object.add("device", device)
        object.add("lease_ms", leaseMs)
    }
}

/// The result of `unlock`: `{"unlocked":true,"device":…}`.
///
/// Threading: a value. Any thread.
package struct UnlockResult: Sendable, Hashable, JSONObjectEncodable {
    package var device: String

    package init(device: String) { self.device = device }

    package func encodeMembers(into object: inout JSONMembers) {
        object.add("unlocked", true)
        object.add("device", device)
    }
}

/// The result of `attach`, the last JSON on the connection:
/// `{"attached":true,"device":…,"session":…}`. `session` is the token that lets the client's
/// `control` requests into the session (docs/control.md).
///
/// Threading: a value. Any thread.
package struct AttachResult: Sendable, Hashable, JSONObjectEncodable {
    package var device: String
    package var session: String

    package init(device: String, session: String) {
        self.device = device
        self.session = session
    }

    package func encodeMembers(into object: inout JSONMembers) {
        object.add("attached", true)
        object.add("device", device)
        object.add("session", session)
    }
}

/// The result of `subscribe` and `unsubscribe`: the subscription as it now stands,
/// `{"subscribed":true,"devices":[…]|"all","events":[…]}`, or `{"subscribed":false}` when none
/// is left.
///
/// Threading: a value. Any thread.
package enum SubscriptionResult: Sendable, Hashable, JSONObjectEncodable {
    case unsubscribed
    /// `devices` nil: every accessory the client may use ("all"). Both lists sorted by the
    /// encoder.
    case subscribed(devices: Set<String>?, events: Set<EventKind>)

    package func encodeMembers(into object: inout JSONMembers) {
        guard case .subscribed(let devices, let events) = self else {
            return object.add("subscribed", false)
        }
        object.add("subscribed", true)
        if let devices {
            object.add("devices", devices.sorted())
        } else {
            object.add("devices", "all")
        }
        object.add("events", events.map(\.rawValue).sorted())
    }
}

/// The result of `client.disconnect`: `{"disconnected":true,"id":…}`.
///
/// Threading: a value. Any thread.
package struct DisconnectResult: Sendable, Hashable, JSONObjectEncodable {
    /// The client that was disconnected.
    package var id: Int64

    package init(id: Int64) { self.id = id }

    package func encodeMembers(into object: inout JSONMembers) {
        object.add("disconnected", true)
        object.add("id", id)
    }
}
