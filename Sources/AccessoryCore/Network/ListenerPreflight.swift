import AccessoryConfig
import SystemCalls

/// The check of `network:` that looks at the system: a listener's port already taken by
/// another program's listening socket (on that address, or on the wildcard address of its
/// family). Run by `--check-config`, at start and before a reload is applied, like the views'
/// ``ViewPreflight``: a configuration that fails it is not used, so nothing is half-created.
///
/// This daemon's own sockets are not "taken" (a reload keeps its unchanged listeners). With
/// `forRunningDaemon` (`--check-config`, a separate process checking a file for the daemon that
/// runs), a socket held by a process called `accessoryd` is taken to be that daemon's: its
/// listeners are this configuration's own. At start and at a reload another `accessoryd`'s
/// socket is taken like any program's.
///
/// Threading: reads procfs. Any thread.
public enum ListenerPreflight {
    public static func issues(_ configuration: Configuration, forRunningDaemon: Bool = false) -> [ConfigIssue] {
        let wanted = configuration.accessories.enumerated().flatMap { a, accessory in
            accessory.network.enumerated().map { ("accessories[\(a)].network[\($0)].listen", $1.listen) }
        }
        guard !wanted.isEmpty else { return [] }
        let listening = ListeningSockets.tcp()
        let own = ListeningSockets.ownInodes()
        let map = configuration.sourceMap
        var issues: [ConfigIssue] = []
        for (key, address) in wanted {
            let wildcard = [UInt8](repeating: 0, count: address.address.count)
            guard
                let taken = listening.first(where: {
                    $0.endpoint.port == address.port && !own.contains($0.inode)
                        && ($0.endpoint.address == address.address || $0.endpoint.address == wildcard)
                })
            else { continue }
            let holder = ListeningSockets.holder(of: taken.inode)
            if forRunningDaemon && holder?.command == "accessoryd" { continue }
            let who = holder.map { "pid \($0.pid) (\($0.command)), uid \(taken.uid)" } ?? "uid \(taken.uid)"
            issues.append(
                ConfigIssue(
                    .error,
                    file: map.file,
                    line: map.line(for: key),
                    keyPath: key,
                    message: "\(address) is in use: \(taken.endpoint) is listened on by \(who)"
                )
            )
        }
        return issues
    }
}
