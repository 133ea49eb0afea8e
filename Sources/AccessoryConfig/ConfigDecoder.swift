import YAMLTree

/// Turns a composed YAML tree into a ``Configuration``: structure and types only (ranges and
/// cross-checks are ``validate(_:)``'s). Every problem is recorded with its line and key path;
/// decoding goes on after one so that a single run reports them all.
///
/// Threading: confined to the decoding call that creates it.
struct ConfigDecoder {
    let context: DecodeContext

    static let topKeys = ["socket", "limits", "log", "hotplug", "threads", "accessories"]

    func decode(_ root: Node?) -> Configuration {
        var configuration = Configuration()
        guard let root, !root.isNull else { return configuration }
        guard let top = MappingReader(root, path: "", context: context, accepted: Self.topKeys) else {
            return configuration
        }
        if let socket = top.mapping("socket", accepted: ["path", "mode", "group"]) {
            configuration.socket = decodeSocket(socket)
        }
        if let limits = top.mapping(
            "limits",
            accepted: [
                "max_clients", "max_line_bytes", "client_outbound_bytes", "queue_depth", "default_timeout_ms",
                "max_requests_per_client", "max_connections_per_uid", "max_lease_ms", "default_lease_ms",
                "attach_idle_ms", "reserved_connections", "idle_connection_timeout_ms", "listener_max_connections",
                "listener_outbound_bytes", "telnet_max_subnegotiation_bytes",
            ]
        ) {
            configuration.limits = decodeLimits(limits)
        }
        if let log = top.mapping("log", accepted: ["level"]) {
            configuration.log.level = log.choice("level", LogLevel.self) ?? configuration.log.level
        }
        if let hotplug = top.mapping("hotplug", accepted: ["udev", "watch"]) {
            configuration.hotplug.udev = hotplug.choice("udev", HotplugSettings.UdevMode.self) ?? .auto
            configuration.hotplug.watch = hotplug.strings("watch", what: "an absolute folder path") ?? []
        }
        if let threads = top.mapping("threads", accepted: ["control"]) {
            configuration.threads.control =
                threads.choice("control", ThreadSettings.ControlPlacement.self) ?? configuration.threads.control
        }
        if let nodes = top.sequence("accessories") {
            for (index, node) in nodes.enumerated() {
                let path = KeyPath.index("accessories", index)
                if let accessory = AccessoryDecoder(context: context).decode(node, path: path) {
                    configuration.accessories.append(accessory)
                }
            }
        }
        return configuration
    }

    private func decodeSocket(_ reader: MappingReader) -> SocketSettings {
        var socket = SocketSettings()
        socket.path = reader.string("path", what: "an absolute path") ?? socket.path
        if let text = reader.string("mode", what: "an octal mode such as \"0660\"") {
            if let mode = Self.octalMode(text) {
                socket.mode = mode
            } else {
                reader.error("mode", "expected an octal mode such as \"0660\", got \(reader.node("mode")!.shown)")
            }
        }
        if let node = reader.node("group") {
            socket.group = decodePrincipal(node, path: reader.childPath("group"))
        }
        return socket
    }

    /// Three or four octal digits (`660`, `0660`).
    static func octalMode(_ text: String) -> UInt32? {
        guard (3...4).contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x37 }) else { return nil }
        return UInt32(text, radix: 8)
    }

    private func decodeLimits(_ reader: MappingReader) -> Limits {
        var limits = Limits()
        limits.maxClients = reader.integer("max_clients", Rules.maxClients) ?? limits.maxClients
        limits.maxLineBytes = reader.integer("max_line_bytes", Rules.maxLineBytes) ?? limits.maxLineBytes
        limits.clientOutboundBytes =
            reader.integer("client_outbound_bytes", Rules.clientOutboundBytes) ?? limits.clientOutboundBytes
        limits.queueDepth = reader.integer("queue_depth", Rules.queueDepth) ?? limits.queueDepth
        limits.defaultTimeoutMs = reader.integer("default_timeout_ms", Rules.timeoutMs) ?? limits.defaultTimeoutMs
        limits.maxRequestsPerClient =
            reader.integer("max_requests_per_client", Rules.maxRequestsPerClient) ?? limits.maxRequestsPerClient
        limits.maxConnectionsPerUID =
            reader.integer("max_connections_per_uid", Rules.maxClients) ?? limits.maxConnectionsPerUID
        limits.maxLeaseMs = reader.integer("max_lease_ms", Rules.timeoutMs) ?? limits.maxLeaseMs
        limits.defaultLeaseMs = reader.integer("default_lease_ms", Rules.timeoutMs) ?? limits.defaultLeaseMs
        limits.attachIdleMs = reader.integer("attach_idle_ms", Rules.timeoutMs) ?? limits.attachIdleMs
        limits.reservedConnections =
            reader.integer("reserved_connections", Rules.reservedConnections) ?? limits.reservedConnections
        limits.idleConnectionTimeoutMs =
            reader.integer("idle_connection_timeout_ms", Rules.timeoutMs) ?? limits.idleConnectionTimeoutMs
        limits.listenerMaxConnections =
            reader.integer("listener_max_connections", Rules.listenerConnections) ?? limits.listenerMaxConnections
        limits.listenerOutboundBytes =
            reader.integer("listener_outbound_bytes", Rules.clientOutboundBytes) ?? limits.listenerOutboundBytes
        limits.telnetMaxSubnegotiationBytes =
            reader.integer("telnet_max_subnegotiation_bytes", Rules.subnegotiationBytes)
            ?? limits.telnetMaxSubnegotiationBytes
        return limits
    }

    /// A name, or a numeric id (digits, quoted or not).
    func decodePrincipal(_ node: Node, path: String) -> Principal? {
        guard case .scalar(let scalar) = node, !node.isNull else {
            context.error(path, line: node.line, "expected a name or a numeric id, got \(node.shown)")
            return nil
        }
        if MappingReader.looksNumeric(scalar.string) {
            guard let value = MappingReader.decimal(scalar.string), Rules.principalID.accepts(value) else {
                context.error(path, line: node.line, "expected a numeric id from 0 to 4294967294, got \(node.shown)")
                return nil
            }
            return .id(UInt32(value))
        }
        return .name(scalar.string)
    }
}
