/// The checks of every accessory's `network:` that need no system call: two listeners on one
/// address and port (in one accessory or two). Whether the port is free is the daemon's to find
/// when it binds.
///
/// Threading: pure. Any thread.
func validateNetwork(_ configuration: Configuration) -> [ConfigIssue] {
    let map = configuration.sourceMap
    var issues: [ConfigIssue] = []
    var seen: [ListenAddress: (accessory: String, path: String)] = [:]
    for (a, accessory) in configuration.accessories.enumerated() {
        for (n, listener) in accessory.network.enumerated() {
            let path = KeyPath.index(KeyPath.child(KeyPath.index("accessories", a), "network"), n) + ".listen"
            if let first = seen[listener.listen] {
                let line = map.line(for: first.path).map { " (line \($0))" } ?? ""
                issues.append(
                    ConfigIssue(
                        .error,
                        file: map.file,
                        line: map.line(for: path),
                        keyPath: path,
                        message: "\(listener.listen) is already the address of a listener of accessory "
                            + "\"\(first.accessory)\"\(line)"
                    )
                )
            } else {
                seen[listener.listen] = (accessory.name, path)
            }
        }
    }
    return issues
}
