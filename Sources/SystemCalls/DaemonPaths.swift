/// Where accessoryd keeps its runtime files and where clients find its socket: one rule shared by
/// the daemon, `accessoryctl`, the Swift client library and any other client, so that a daemon
/// started by a user and a client run by the same user meet with no flags.
///
/// The pure functions take their inputs (environment, uid, whether a file exists) as arguments so
/// that tests can state each case; the ``current`` variants read this process's.
///
/// Threading: stateless. Any thread.
public enum DaemonPaths {
    /// The system daemon's runtime directory (systemd's `RuntimeDirectory=accessoryd`).
    public static let systemRuntimeDirectory = "/run/accessoryd"
    /// The socket's file name in a runtime directory.
    public static let socketName = "accessoryd.sock"
    /// The system daemon's socket.
    public static let systemSocket = systemRuntimeDirectory + "/" + socketName

    /// The runtime directory a daemon run by `uid` uses when nothing names one: the system's for
    /// root; else `$XDG_RUNTIME_DIR/accessoryd` (the per-user 0700 tmpfs systemd-logind makes),
    /// else `/tmp/accessoryd-<uid>`.
    public static func userRuntimeDirectory(uid: UInt32, xdgRuntimeDirectory: String?) -> String {
        if uid == 0 { return systemRuntimeDirectory }
        if let xdg = xdgRuntimeDirectory, xdg.hasPrefix("/") {
            return (xdg.hasSuffix("/") ? String(xdg.dropLast()) : xdg) + "/accessoryd"
        }
        return "/tmp/accessoryd-\(uid)"
    }

    /// The daemon's runtime directory: `explicit` (`--runtime-dir`), else the first of
    /// `$RUNTIME_DIRECTORY` (set by systemd), else ``userRuntimeDirectory(uid:xdgRuntimeDirectory:)``.
    public static func runtimeDirectory(
        explicit: String?,
        environment: (String) -> String?,
        uid: UInt32
    ) -> String {
        if let explicit { return explicit }
        if let fromSystemd = environment("RUNTIME_DIRECTORY")?.split(separator: ":").first {
            return String(fromSystemd)
        }
        return userRuntimeDirectory(uid: uid, xdgRuntimeDirectory: environment("XDG_RUNTIME_DIR"))
    }

    /// The socket a client connects to: `explicit` (`--socket`), else `$ACCESSORYD_SOCKET` (when
    /// not empty), else the system daemon's socket when that file exists, else the socket of the
    /// daemon this user would start (``userRuntimeDirectory(uid:xdgRuntimeDirectory:)``).
    /// Whatever the path, a client checks it before use by ``ClientSocketTrust`` (a socket in this
    /// user's per-user runtime directory must be this user's, and so must its daemon).
    public static func clientSocket(
        explicit: String?,
        environment: (String) -> String?,
        uid: UInt32,
        exists: (String) -> Bool
    ) -> String {
        if let explicit { return explicit }
        if let fromEnvironment = environment("ACCESSORYD_SOCKET"), !fromEnvironment.isEmpty { return fromEnvironment }
        if exists(systemSocket) { return systemSocket }
        return userRuntimeDirectory(uid: uid, xdgRuntimeDirectory: environment("XDG_RUNTIME_DIR")) + "/" + socketName
    }

    /// ``clientSocket(explicit:environment:uid:exists:)`` for this process.
    public static func currentClientSocket(explicit: String? = nil) -> String {
        clientSocket(
            explicit: explicit,
            environment: ProcessEnvironment.value,
            uid: UserDatabase.effectiveUserID,
            exists: Self.somethingIsAt
        )
    }

    /// Whether a name is there, for choosing a socket: something this user may not even look at
    /// (`EACCES`, a folder it may not enter) is there too, so that connecting to it says
    /// "permission denied" rather than falling back to another daemon's socket and "not running".
    static func somethingIsAt(_ path: String) -> Bool {
        do { return try FileIO.status(ofPath: path) != nil } catch { return error.errno == .permissionDenied }
    }

    /// ``runtimeDirectory(explicit:environment:uid:)`` for this process.
    public static func currentRuntimeDirectory(explicit: String? = nil) -> String {
        runtimeDirectory(explicit: explicit, environment: ProcessEnvironment.value, uid: UserDatabase.effectiveUserID)
    }
}
