/// The checks of every accessory's `views:` that need no system lookup: the path's form, the
/// permission bits, owner and group names, and two views on one path. (Whether the owner and
/// group exist and what is at the path now is checked by the daemon, which can look.)
///
/// Threading: pure. Any thread.
func validateViews(_ configuration: Configuration) -> [ConfigIssue] {
    let map = configuration.sourceMap
    var issues: [ConfigIssue] = []
    func error(_ path: String, _ message: String) {
        issues.append(ConfigIssue(.error, file: map.file, line: map.line(for: path), keyPath: path, message: message))
    }
    var seen: [String: (accessory: String, path: String)] = [:]
    for (a, accessory) in configuration.accessories.enumerated() {
        for (v, view) in accessory.views.enumerated() {
            let path = KeyPath.index(KeyPath.child(KeyPath.index("accessories", a), "views"), v)
            if let problem = ViewPathRule.problem(view.pty) { error(path + ".pty", problem) }
            if let ms = view.idleMs, !Rules.timeoutMs.accepts(ms) {
                error(path + ".idle_ms", "expected \(Rules.timeoutMs.what), got \(ms)")
            }
            if !Rules.viewBufferBytes.accepts(view.bufferBytes) {
                error(path + ".buffer_bytes", "expected \(Rules.viewBufferBytes.what), got \(view.bufferBytes)")
            }
            if let perm = view.perm, perm > 0o777 {
                error(path + ".perm", "expected permission bits (at most 0777), got \(String(perm, radix: 8))")
            }
            for (key, principal) in [("owner", view.owner), ("group", view.group)] {
                if case .name(let name)? = principal, !Rules.isValidPrincipalName(name) {
                    error(path + "." + key, "expected a user or group name or a numeric id, got \"\(name)\"")
                }
            }
            if let first = seen[view.pty] {
                let line = map.line(for: first.path).map { " (line \($0))" } ?? ""
                error(
                    path + ".pty",
                    "\(view.pty) is already the path of a view of accessory \"\(first.accessory)\"\(line)"
                )
            } else {
                seen[view.pty] = (accessory.name, path + ".pty")
            }
        }
    }
    return issues
}

/// What a view's `pty` may be. Threading: pure. Any thread.
enum ViewPathRule {
    /// Why `pty` cannot be a view's path, or nil.
    static func problem(_ pty: String) -> String? {
        if pty.isEmpty { return "expected a path, got an empty string" }
        if pty.utf8.contains(0) { return "a path cannot contain a NUL character" }
        if pty.hasSuffix("/") { return "expected a file path, got a folder (\"\(pty)\")" }
        if pty.hasPrefix("/") {
            let parts = pty.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            if parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) {
                return "expected a plain absolute path (no empty, \".\" or \"..\" parts), got \"\(pty)\""
            }
            return nil
        }
        if pty.contains("/") || pty == "." || pty == ".." {
            return "a relative view path is a file name in the runtime directory's tty/ folder (no \"/\"), "
                + "got \"\(pty)\"; give an absolute path to put it elsewhere"
        }
        return nil
    }
}
