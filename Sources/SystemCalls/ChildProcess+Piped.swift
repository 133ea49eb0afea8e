import CAccessoryShims
import Glibc

extension ChildProcess {
    /// Starts `executable` (a path; see ``locate(_:searchPath:)``) with `arguments` (not
    /// including argv[0]) and this process's environment, its standard input, output and error
    /// being `standardInput`, `standardOutput` and `standardError` (pass blocking descriptors: the
    /// child shares their file status flags; one descriptor may be given for two of them).
    ///
    /// For a helper program that a client drives through its streams (`ssh` carrying the
    /// protocol): SIGINT and SIGQUIT are ignored in the child, so that a Ctrl-C typed at the
    /// terminal reaches the program that started it and only that program decides what it means
    /// (OpenSSH keeps an inherited SIGINT ignored); the child stays in the caller's process group,
    /// so that it may still prompt on the terminal (a passphrase, an unknown host key). SIGTERM,
    /// SIGHUP, SIGPIPE and SIGCHLD are at their defaults and the signal mask is empty. An exec
    /// failure (no such file, not executable) is thrown with the child's errno. The corresponding
    /// C functions are `fork`, `dup2` and `execve`. Any thread.
    public static func launchPiped(
        _ executable: String,
        arguments: [String],
        standardInput: CInt,
        standardOutput: CInt,
        standardError: CInt
    ) throws(SyscallError) -> pid_t {
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        return try syscallValue(.fork) {
            argv.withUnsafeBufferPointer {
                cas_spawn_piped(executable, $0.baseAddress, standardInput, standardOutput, standardError)
            }
        }
    }

    /// The first executable file named `name` in the colon-separated folders of `searchPath`
    /// (`$PATH` when nil, else `/usr/bin:/bin`), as a shell finds a command; `name` itself when it
    /// holds a slash and is executable; nil when there is none. The corresponding C function is
    /// `access` (`X_OK`). Any thread.
    public static func locate(_ name: String, searchPath: String? = nil) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        let folders = (searchPath ?? ProcessEnvironment.value("PATH") ?? "/usr/bin:/bin").split(separator: ":")
        for folder in folders where !folder.isEmpty {
            let candidate = folder + "/" + name
            if access(candidate, X_OK) == 0, (try? FileIO.status(ofPath: candidate))??.kind != .directory {
                return candidate
            }
        }
        return nil
    }
}

extension ChildProcess {
    /// SIGTERM, for callers that do not import the C library.
    public static let terminationSignal: CInt = SIGTERM
    /// SIGKILL, the last resort.
    public static let killSignal: CInt = SIGKILL
}
