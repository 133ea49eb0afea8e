import YAMLTree

extension AccessoryDecoder {
    static let viewKeys = ["pty", "mode", "owner", "group", "perm", "buffer_bytes", "idle_ms"]

    /// `views: [{pty, mode, owner?, group?, perm?, buffer_bytes?}]`; entries without a usable
    /// `pty` or `mode` are reported and left out.
    func decodeViews(_ accessory: MappingReader) -> [ViewSettings] {
        guard let nodes = accessory.sequence("views") else { return [] }
        var views: [ViewSettings] = []
        for (index, node) in nodes.enumerated() {
            let path = KeyPath.index(accessory.childPath("views"), index)
            context.record(path, line: node.line)
            guard let reader = MappingReader(node, path: path, context: context, accepted: Self.viewKeys) else {
                continue
            }
            if !reader.has("pty") {
                reader.errorHere(
                    "missing required key \"pty\" (the view's path: a name under the runtime directory's tty/ folder, or an absolute path)"
                )
            }
            if !reader.has("mode") { reader.errorHere("missing required key \"mode\" (monitor, shared or exclusive)") }
            let pty = reader.string("pty", what: "a path")
            let mode = reader.choice("mode", ViewSettings.Mode.self)
            var perm: UInt32?
            if let text = reader.string("perm", what: "an octal mode such as \"0660\"") {
                perm = ConfigDecoder.octalMode(text)
                if perm == nil {
                    reader.error("perm", "expected an octal mode such as \"0660\", got \(reader.node("perm")!.shown)")
                }
            }
            let owner = reader.node("owner").flatMap {
                ConfigDecoder(context: context).decodePrincipal($0, path: reader.childPath("owner"))
            }
            let group = reader.node("group").flatMap {
                ConfigDecoder(context: context).decodePrincipal($0, path: reader.childPath("group"))
            }
            let buffer = reader.integer("buffer_bytes", Rules.viewBufferBytes)
            let idle = reader.integer("idle_ms", Rules.timeoutMs)
            if idle != nil, mode != nil, mode != .exclusive {
                reader.error("idle_ms", "applies only to an exclusive view (its raw session)")
            }
            guard let pty, let mode else { continue }
            views.append(
                ViewSettings(
                    pty: pty,
                    mode: mode,
                    owner: owner,
                    group: group,
                    perm: perm,
                    bufferBytes: buffer ?? ViewSettings.defaultBufferBytes,
                    idleMs: idle
                )
            )
        }
        return views
    }
}
