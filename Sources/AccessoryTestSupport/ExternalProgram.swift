import Glibc

/// The programs the tests run (`python3`, `setpriv`, `strace`, `prlimit`,
/// `systemd-socket-activate`), found on `PATH` as a shell finds them, never at a fixed path:
/// distributions and containers put them in different folders. `scripts/install-deps.sh`
/// installs them; a test that needs a missing one is skipped with ``missing(_:)`` as its reason.
///
/// Any thread (reads the environment and the file system only).
package enum ExternalProgram {
    /// The Debian package that provides each program, for the skip reasons.
    static let packages = [
        "python3": "python3", "setpriv": "util-linux", "prlimit": "util-linux", "strace": "strace",
        "systemd-socket-activate": "systemd", "socat": "socat", "tmux": "tmux", "gpsd": "gpsd",
        "gpspipe": "gpsd-clients", "picocom": "picocom",
    ]

    /// The folders searched when `PATH` is unset (glibc's `execvp` default plus the sbin folders).
    static let defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

    /// The full path of the executable `name` on `PATH`, or nil when there is none. With
    /// `forOtherUsers`, only one that another user may run: every folder on its way searchable and
    /// the file executable by others (a `python3` shim under root's private home is skipped for
    /// the system's one).
    package static func path(_ name: String, forOtherUsers: Bool = false) -> String? {
        let search = getenv("PATH").map { String(cString: $0) } ?? defaultPath
        for folder in search.split(separator: ":", omittingEmptySubsequences: true) {
            let candidate = folder + "/" + name
            guard access(candidate, X_OK) == 0 else { continue }
            if forOtherUsers && !othersMayRun(candidate) { continue }
            return candidate
        }
        return nil
    }

    /// Whether users other than the owner may run `path`: its real path is executable by
    /// others and every folder above it searchable by others.
    package static func othersMayRun(_ path: String) -> Bool {
        guard let resolved = realpath(path, nil) else { return false }
        defer { free(resolved) }
        var current = String(cString: resolved)
        var info = stat()
        guard stat(current, &info) == 0, info.st_mode & S_IXOTH != 0 else { return false }
        while let slash = current.lastIndex(of: "/"), slash != current.startIndex {
            current = String(current[..<slash])
            guard stat(current, &info) == 0, info.st_mode & S_IXOTH != 0 else { return false }
        }
        return true
    }

    /// The full path of `name`, or `name` itself when it is not on `PATH` (so that running it fails
    /// with "not found", naming it). Use after ``missing(_:)`` has cleared the test to run.
    package static func locate(_ name: String, forOtherUsers: Bool = false) -> String {
        path(name, forOtherUsers: forOtherUsers) ?? name
    }

    /// Why a test that runs `names` cannot run here: the first program not on `PATH`, and the
    /// package that provides it; nil when all are there.
    package static func missing(_ names: String...) -> String? {
        missing(names, forOtherUsers: false)
    }

    static func missing(_ names: [String], forOtherUsers: Bool) -> String? {
        for name in names where path(name, forOtherUsers: forOtherUsers) == nil {
            let package = packages[name].map { " (Debian package \($0); scripts/install-deps.sh installs it)" } ?? ""
            let whom = forOtherUsers ? " where other users may run it" : ""
            return "\(name) is not on PATH\(whom)\(package)"
        }
        return nil
    }

    /// Why a test that runs `names` as another user (through `setpriv`, which needs root) cannot
    /// run here, or nil.
    package static func missingAsAnotherUser(_ names: String...) -> String? {
        if getuid() != 0 { return "running a program as another uid (setpriv) needs root" }
        return missing(["setpriv"], forOtherUsers: false) ?? missing(names, forOtherUsers: true)
    }
}
