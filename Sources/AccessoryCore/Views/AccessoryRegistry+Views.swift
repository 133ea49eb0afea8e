import ControlProtocol

extension AccessoryRegistry {
    /// Where views with a relative `pty:` are made: `<directory>/tty/`. Set before ``start()``
    /// (the daemon gives its runtime directory). Device loop, or before the loop runs.
    public var viewRuntimeDirectory: String {
        get { views.runtimeDirectory }
        set { views.runtimeDirectory = newValue }
    }
}

extension AccessoryRegistry {
    /// For `daemon.status`: `[{device, path, mode, open, client_id}]`, the views of the
    /// accessories `names` (those the caller may see). Device loop.
    func viewSummaries(of names: [String]) -> [ViewSummary] {
        let visible = Set(names)
        return views.views.filter { visible.contains($0.accessoryName) }.map { v in
            ViewSummary(
                device: v.accessoryName,
                path: v.link.path,
                mode: v.settings.mode.rawValue,
                open: v.isOpen,
                clientID: Int64(clamping: v.clientID)
            )
        }
    }
}
