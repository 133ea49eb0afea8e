import CAccessoryShims
import Glibc

extension ChildProcess {
    /// As ``spawn(_:arguments:standardOutput:)``, but the child is sent `deathSignal` when the
    /// thread that called this ends: `PR_SET_PDEATHSIG`, set in the child between `fork` and
    /// `exec` and followed by a check that the parent is still the one that forked (had it died
    /// in between, the child exits at once: no signal would ever come). Linux ties the signal to
    /// the calling *thread*, so call this only from a thread that lives as long as the process
    /// (a daemon's main thread). The child also starts with SIGCHLD's default disposition. An
    /// exec failure is thrown with the child's errno. The corresponding C functions are `fork`,
    /// `prctl` and `execve`. Any long-lived thread.
    public static func spawnTied(
        _ executable: String,
        arguments: [String],
        standardOutput: CInt? = nil,
        deathSignal: CInt = SIGTERM
    ) throws(SyscallError) -> pid_t {
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        return try syscallValue(.fork) {
            argv.withUnsafeBufferPointer {
                cas_spawn_tied(executable, $0.baseAddress, standardOutput ?? -1, deathSignal)
            }
        }
    }
}
