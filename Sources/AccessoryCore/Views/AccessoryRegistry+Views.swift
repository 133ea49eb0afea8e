import ControlProtocol

extension AccessoryRegistry {
    /// Where views with a relative `pty:` are made: `<directory>/tty/`. Set before ``start()``
    /// (the daemon gives its runtime directory). Device loop, or before the loop runs.
    public var viewRuntimeDirectory: String {
        get { views.runtimeDirectory }
        set { views.runtimeDirectory = newValue }
    }

    /// `device.status` with the accessory's views (`views: [...]`, see ``PtyView/statusJSON()``).
    func withViews(_ status: JSONValue, of name: String) -> JSONValue {
        guard case .object(var o) = status else { return status }
        o.append("views", .array(views.statusJSON(of: name)))
        return .object(o)
    }
}

extension AccessoryRegistry {
    /// For `daemon.status`: `[{device, path, mode, open, client_id}]`, the views of the
    /// accessories `names` (those the caller may see). Device loop.
    func viewsSummaryJSON(of names: [String]) -> JSONValue {
        let visible = Set(names)
        return .array(
            views.views.filter { visible.contains($0.accessoryName) }.map { v in
                var o: JSONObject = [:]
                o.append("device", .string(v.accessoryName))
                o.append("path", .string(v.link.path))
                o.append("mode", .string(v.settings.mode.rawValue))
                o.append("open", .bool(v.isOpen))
                o.append("client_id", .integer(Int64(clamping: v.clientID)))
                return .object(o)
            }
        )
    }
}
