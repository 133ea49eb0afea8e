import Glibc

extension ChildProcess {
    /// Starts `executable` (a path; no `PATH` search) with `arguments` (not including argv[0]) and
    /// `environment` (`NAME=value` strings; nil inherits this process's). Each given descriptor
    /// becomes the child's standard input, output or error (pass blocking descriptors: the child
    /// shares their file status flags). As ``spawn(_:arguments:standardOutput:)``, the child starts
    /// with an empty signal mask and default dispositions for SIGTERM, SIGINT, SIGHUP and SIGPIPE.
    /// `passing` descriptors become the child's 3, 4, … in order (as systemd passes `LISTEN_FDS`).
    /// The corresponding C function is `posix_spawn`. Any thread.
    public static func launch(
        _ executable: String,
        arguments: [String],
        environment: [String]? = nil,
        standardInput: CInt? = nil,
        standardOutput: CInt? = nil,
        standardError: CInt? = nil,
        passing descriptors: [CInt] = []
    ) throws(SyscallError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, target) in [(standardInput, 0), (standardOutput, 1), (standardError, 2)] {
            if let fd { posix_spawn_file_actions_adddup2(&actions, fd, CInt(target)) }
        }
        // Copies above the targets first, so that no dup2 overwrites a source still to be copied.
        let firstFree = CInt(3 + descriptors.count)
        let sources = descriptors.map { Glibc.fcntl($0, F_DUPFD_CLOEXEC, firstFree) }
        defer { for s in sources where s >= 0 { Glibc.close(s) } }
        if let bad = sources.firstIndex(where: { $0 < 0 }) {
            _ = bad
            throw SyscallError(.fcntl, Errno(rawValue: errno))
        }
        for (i, source) in sources.enumerated() {
            posix_spawn_file_actions_adddup2(&actions, source, CInt(3 + i))
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        var defaults = sigset_t()
        sigemptyset(&empty)
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup($0) } + [nil] }
        defer { for pointer in envp ?? [] { free(pointer) } }
        var pid: pid_t = 0
        let rc: CInt
        if let envp {
            rc = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        } else {
            rc = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        }
        guard rc == 0 else { throw SyscallError(.posix_spawn, Errno(rawValue: rc)) }
        return pid
    }
}
