/// How far a client trusts the socket it is about to connect to, decided by where the socket
/// is, not by how the client came to its path: a socket in a directory another local user could
/// have made first is checked before and after connecting, as the daemon checks its own
/// runtime directory (``DirectorySafety``).
///
/// - ``perUser(directory:)``: the caller's per-user runtime directory (`/tmp/accessoryd-<uid>`,
///   or `$XDG_RUNTIME_DIR/accessoryd`), however the path was given. `/tmp` is open to all, so
///   another user may have made that directory first and listen there. Checked: the directory
///   (``DirectorySafety/privateTo(uid:)``), the socket (a socket, owned by the caller), and the
///   listening process (`SO_PEERCRED`: the caller's uid or root).
/// - ``system``: `/run/accessoryd/accessoryd.sock`. Only root (or systemd for the daemon) can
///   make names in `/run`, and systemd's `DynamicUser=` runs the daemon as an arbitrary uid that
///   no rule here could name, so the system socket is trusted.
/// - ``asGiven``: any other path (`--socket`, `$ACCESSORYD_SOCKET`, a program's own): the user
///   chose it, perhaps a daemon run by another account on purpose; trusted as given.
///
/// Threading: a value. Any thread.
public enum ClientSocketTrust: Sendable, Equatable {
    case perUser(directory: String)
    case system
    case asGiven

    /// The trust of `path` for a client run by `uid` in `environment`. Paths are compared as
    /// strings, as ``DaemonPaths/userRuntimeDirectory(uid:xdgRuntimeDirectory:)`` writes them.
    public static func of(path: String, environment: (String) -> String?, uid: UInt32) -> ClientSocketTrust {
        if path == DaemonPaths.systemSocket { return .system }
        guard uid != 0, let slash = path.lastIndex(of: "/") else { return .asGiven }
        let directory = String(path[..<slash])
        let perUser = [
            DaemonPaths.userRuntimeDirectory(uid: uid, xdgRuntimeDirectory: environment("XDG_RUNTIME_DIR")),
            DaemonPaths.userRuntimeDirectory(uid: uid, xdgRuntimeDirectory: nil),
        ]
        return perUser.contains(directory) ? .perUser(directory: directory) : .asGiven
    }

    /// ``of(path:environment:uid:)`` for this process.
    public static func current(path: String) -> ClientSocketTrust {
        of(path: path, environment: ProcessEnvironment.value, uid: UserDatabase.effectiveUserID)
    }
}
