import Glibc

/// File-name calls: symbolic links, atomic renames, temporary folders, and the process-wide
/// signal disposition some tools need. Any thread.
extension FileIO {
    /// Creates a symbolic link at `path` that points to `target`. The corresponding C function is
    /// `symlink`.
    public static func symlink(target: String, at path: String) throws(SyscallError) {
        _ = try syscallValue(.symlink) { Glibc.symlink(target, path) }
    }

    /// Renames `from` to `to`, atomically replacing `to` if it exists. The corresponding C function
    /// is `rename`.
    public static func rename(_ from: String, to: String) throws(SyscallError) {
        _ = try syscallValue(.rename) { Glibc.rename(from, to) }
    }

    /// The target of the symbolic link at `path`. The corresponding C function is `readlink`.
    public static func readLink(_ path: String) throws(SyscallError) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = try syscallValue(.readlink) {
            buffer.withUnsafeMutableBufferPointer { Glibc.readlink(path, $0.baseAddress!, $0.count - 1) }
        }
        return String(decoding: buffer[..<Int(n)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Creates a new, private (mode 0700) folder named `prefix` followed by six random characters,
    /// and returns its path. `prefix` usually starts with `/tmp/`. The corresponding C function is
    /// `mkdtemp`.
    public static func makeTemporaryDirectory(prefix: String) throws(SyscallError) -> String {
        var template = Array((prefix + "XXXXXX").utf8CString)
        _ = try syscallValue(.mkdtemp) {
            template.withUnsafeMutableBufferPointer { Glibc.mkdtemp($0.baseAddress!) == nil ? -1 : 0 }
        }
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Removes an empty folder. The corresponding C function is `rmdir`.
    public static func removeDirectory(_ path: String) throws(SyscallError) {
        _ = try syscallValue(.rmdir) { Glibc.rmdir(path) }
    }

    /// Makes the process ignore `signal` (typically `SIGPIPE`, so that a closed pipe is an `EPIPE`
    /// error instead of death). Process-wide. The corresponding C function is `signal`.
    public static func ignoreSignal(_ signal: CInt) {
        _ = Glibc.signal(signal, SIG_IGN)
    }
}
