/// The result of `lock`: `{"locked":true,"device":…,"lease_ms":…}`.
///
/// Threading: a value. Any thread.
public struct LockResult: Sendable, Hashable, JSONEncodable {
    public var device: String
    /// How long the lease lasts from the grant.
    public var leaseMs: Int64

    public init(device: String, leaseMs: Int64) {
        self.device = device
        self.leaseMs = leaseMs
    }

    public func encodeJSON(into buffer: inout [UInt8]) {
        JSONOutput.appendLiteral("{\"locked\":true,\"device\":", to: &buffer)
        JSONOutput.appendString(device, to: &buffer)
        JSONOutput.appendLiteral(",\"lease_ms\":", to: &buffer)
        JSONOutput.appendInteger(leaseMs, to: &buffer)
        buffer.append(UInt8(ascii: "}"))
    }
}

/// The result of `unlock`: `{"unlocked":true,"device":…}`.
///
/// Threading: a value. Any thread.
public struct UnlockResult: Sendable, Hashable, JSONEncodable {
    public var device: String

    public init(device: String) { self.device = device }

    public func encodeJSON(into buffer: inout [UInt8]) {
        JSONOutput.appendLiteral("{\"unlocked\":true,\"device\":", to: &buffer)
        JSONOutput.appendString(device, to: &buffer)
        buffer.append(UInt8(ascii: "}"))
    }
}

/// The result of `attach`, the last JSON on the connection: `{"attached":true,"device":…}`.
///
/// Threading: a value. Any thread.
public struct AttachResult: Sendable, Hashable, JSONEncodable {
    public var device: String

    public init(device: String) { self.device = device }

    public func encodeJSON(into buffer: inout [UInt8]) {
        JSONOutput.appendLiteral("{\"attached\":true,\"device\":", to: &buffer)
        JSONOutput.appendString(device, to: &buffer)
        buffer.append(UInt8(ascii: "}"))
    }
}

/// The result of `subscribe` and `unsubscribe`: the subscription as it now stands,
/// `{"subscribed":true,"devices":[…]|"all","events":[…]}`, or `{"subscribed":false}` when none
/// is left.
///
/// Threading: a value. Any thread.
public enum SubscriptionResult: Sendable, Hashable, JSONEncodable {
    case unsubscribed
    /// `devices` nil: every accessory the client may use ("all"). Both lists sorted by the
    /// encoder.
    case subscribed(devices: Set<String>?, events: Set<EventKind>)

    public func encodeJSON(into buffer: inout [UInt8]) {
        guard case .subscribed(let devices, let events) = self else {
            JSONOutput.appendLiteral("{\"subscribed\":false}", to: &buffer)
            return
        }
        JSONOutput.appendLiteral("{\"subscribed\":true,\"devices\":", to: &buffer)
        if let devices {
            appendStrings(devices.sorted(), to: &buffer)
        } else {
            JSONOutput.appendLiteral("\"all\"", to: &buffer)
        }
        JSONOutput.appendLiteral(",\"events\":", to: &buffer)
        appendStrings(events.map(\.rawValue).sorted(), to: &buffer)
        buffer.append(UInt8(ascii: "}"))
    }

    private func appendStrings(_ strings: [String], to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "["))
        for (index, string) in strings.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            JSONOutput.appendString(string, to: &buffer)
        }
        buffer.append(UInt8(ascii: "]"))
    }
}

/// The result of `client.disconnect`: `{"disconnected":true,"id":…}`.
///
/// Threading: a value. Any thread.
public struct DisconnectResult: Sendable, Hashable, JSONEncodable {
    /// The client that was disconnected.
    public var id: Int64

    public init(id: Int64) { self.id = id }

    public func encodeJSON(into buffer: inout [UInt8]) {
        JSONOutput.appendLiteral("{\"disconnected\":true,\"id\":", to: &buffer)
        JSONOutput.appendInteger(id, to: &buffer)
        buffer.append(UInt8(ascii: "}"))
    }
}
