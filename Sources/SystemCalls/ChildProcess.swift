import CAccessoryShims
import Glibc

/// Starting, signalling and reaping child processes (tests and tools that run the built
/// executables). Any thread; a child is reaped by whoever calls ``wait(_:block:)`` for it.
public enum ChildProcess {
    /// How a child ended. Any thread (a value).
    public enum Termination: Sendable, Equatable {
        case exited(CInt)
        case signalled(CInt)
    }

    /// Starts `executable` with `arguments` (not including argv[0], which is the executable path)
    /// and the current environment. `standardOutput`, if given, becomes the child's fd 1. The child
    /// starts with an empty signal mask and default dispositions for SIGTERM, SIGINT, SIGHUP and
    /// SIGPIPE. The corresponding C function is `posix_spawn`.
    public static func spawn(
        _ executable: String,
        arguments: [String],
        standardOutput: CInt? = nil
    ) throws(SyscallError) -> pid_t {
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        return try syscallValue(.posix_spawn) {
            argv.withUnsafeBufferPointer { cas_spawn(executable, $0.baseAddress, standardOutput ?? -1) }
        }
    }

    /// Sends `signal` to the process `pid`. The corresponding C function is `kill`.
    public static func signal(_ pid: pid_t, _ signal: CInt) throws(SyscallError) {
        precondition(pid > 0, "signal only one child, by its pid")
        _ = try syscallValue(.kill) { Glibc.kill(pid, signal) }
    }

    /// Reaps the child `pid`: its termination, or nil if `block` is false and it still runs.
    /// The corresponding C function is `waitpid`.
    public static func wait(_ pid: pid_t, block: Bool) throws(SyscallError) -> Termination? {
        var code: CInt = -1
        var sig: CInt = 0
        let r = try syscallValue(.waitpid) { cas_wait_child(pid, block ? 0 : 1, &code, &sig) }
        if r == 0 { return nil }
        return sig > 0 ? .signalled(sig) : .exited(code)
    }
}
