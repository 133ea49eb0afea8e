import YAMLTree

extension AccessoryDecoder {
    static let networkKeys = ["listen", "protocol", "settings"]

    /// `network: [{listen, protocol?, settings?}]`; entries without a usable loopback `listen`
    /// are reported and left out.
    func decodeNetwork(_ accessory: MappingReader) -> [NetworkListenerSettings] {
        guard let nodes = accessory.sequence("network") else { return [] }
        var listeners: [NetworkListenerSettings] = []
        for (index, node) in nodes.enumerated() {
            let path = KeyPath.index(accessory.childPath("network"), index)
            context.record(path, line: node.line)
            guard let reader = MappingReader(node, path: path, context: context, accepted: Self.networkKeys) else {
                continue
            }
            if !reader.has("listen") {
                reader.errorHere("missing required key \"listen\" (a loopback address and port, \"127.0.0.1:4001\")")
            }
            let kind = reader.choice("protocol", NetworkListenerSettings.ProtocolKind.self)
            let policy = reader.choice("settings", NetworkListenerSettings.SettingsPolicy.self)
            guard let text = reader.string("listen", what: "an address and port such as \"127.0.0.1:4001\"") else {
                continue
            }
            switch ListenAddress.parse(text) {
            case .failure(let problem):
                reader.error("listen", problem.description)
            case .success(let address) where !address.isLoopback:
                reader.error("listen", Self.notLoopback(text))
            case .success(let address):
                listeners.append(
                    NetworkListenerSettings(listen: address, kind: kind ?? .rfc2217, settings: policy ?? .follow)
                )
            }
        }
        return listeners
    }

    /// The daemon listens on no network: what to do instead.
    static func notLoopback(_ text: String) -> String {
        "\(text) is not a loopback address: accessoryd listens only on 127.0.0.1 (127.0.0.0/8) or [::1]; "
            + "to reach the port from another machine, forward it through SSH (`ssh -L 4001:127.0.0.1:4001 host`, "
            + "or labgrid's --isolated proxy)"
    }
}
