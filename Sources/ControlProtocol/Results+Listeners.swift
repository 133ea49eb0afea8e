import JSONCodec

/// A network listener in `device.status`:
/// `{listen, protocol, settings, error?, counters, connections}`; `error` (and no connections)
/// when it could not listen.
///
/// Threading: a value. Any thread.
package struct ListenerStatus: Sendable, Hashable, JSONObjectEncodable {
    /// `127.0.0.1:4001`, `[::1]:4001`.
    package var listen: String
    /// `rfc2217` or `raw`.
    package var kind: String
    /// `follow` or `locked`.
    package var settings: String
    /// Why it is not listening (the port is in use…), nil when it is.
    package var error: String?
    package var counters: Counters
    package var connections: [NetworkConnectionStatus]

    package init(
        listen: String,
        kind: String,
        settings: String,
        error: String? = nil,
        counters: Counters = Counters(),
        connections: [NetworkConnectionStatus] = []
    ) {
        self.listen = listen
        self.kind = kind
        self.settings = settings
        self.error = error
        self.counters = counters
        self.connections = connections
    }

    package func encodeMembers(into object: inout JSONMembers) {
        object.add("listen", listen)
        object.add("protocol", kind)
        object.add("settings", settings)
        if let error { object.add("error", error) }
        object.add("counters", counters)
        object.add("connections", connections)
    }

    /// A listener's connections since it was made, and those it refused.
    ///
    /// Threading: a value. Any thread.
    package struct Counters: Sendable, Hashable, JSONObjectEncodable {
        package var accepted: UInt64 = 0
        /// `access:` does not allow the peer socket's owner.
        package var refusedAccess: UInt64 = 0
        /// The peer socket's owner could not be found.
        package var refusedUnknown: UInt64 = 0
        /// The listener's connection limit was reached.
        package var refusedFull: UInt64 = 0

        package init() {}

        package func encodeMembers(into object: inout JSONMembers) {
            object.add("accepted", accepted)
            object.add("refused_access", refusedAccess)
            object.add("refused_unknown", refusedUnknown)
            object.add("refused_full", refusedFull)
        }
    }
}

/// A listener's connection in `device.status`: `{client_id, remote, uid, session, counters}`.
///
/// Threading: a value. Any thread.
package struct NetworkConnectionStatus: Sendable, Hashable, JSONObjectEncodable {
    /// As `clients.list` shows it.
    package var clientID: Int64
    /// The peer's address and port.
    package var remote: String
    /// The peer socket's owner.
    package var uid: Int64
    /// `attached`, `attaching` or `detached` (the accessory is absent).
    package var session: String
    package var counters: Counters

    package init(clientID: Int64, remote: String, uid: Int64, session: String, counters: Counters) {
        self.clientID = clientID
        self.remote = remote
        self.uid = uid
        self.session = session
        self.counters = counters
    }

    package func encodeMembers(into object: inout JSONMembers) {
        object.add("client_id", clientID)
        object.add("remote", remote)
        object.add("uid", uid)
        object.add("session", session)
        object.add("counters", counters)
    }

    /// A connection's figures. AccessoryCore counts into this value itself.
    ///
    /// Threading: a value. Any thread.
    package struct Counters: Sendable, Hashable, JSONObjectEncodable {
        package var bytesFromClient: UInt64 = 0
        package var bytesToClient: UInt64 = 0
        package var bytesToDevice: UInt64 = 0
        package var bytesFromDevice: UInt64 = 0
        /// Written while the accessory was absent (refused).
        package var refusedBytes: UInt64 = 0
        /// Left unsent when a client that did not read was disconnected.
        package var droppedBytes: UInt64 = 0
        /// Raw sessions begun (more than one after a replug).
        package var sessions: UInt64 = 0
        /// Malformed telnet, unknown COM-PORT commands.
        package var protocolErrors: UInt64 = 0

        package init() {}

        package func encodeMembers(into object: inout JSONMembers) {
            object.add("bytes_from_client", bytesFromClient)
            object.add("bytes_to_client", bytesToClient)
            object.add("bytes_to_device", bytesToDevice)
            object.add("bytes_from_device", bytesFromDevice)
            object.add("refused_bytes", refusedBytes)
            object.add("dropped_bytes", droppedBytes)
            object.add("sessions", sessions)
            object.add("protocol_errors", protocolErrors)
        }
    }
}
