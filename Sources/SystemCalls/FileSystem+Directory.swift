import Glibc

/// Reading folders and resolving link chains (the by-id folder watcher, path matching). Any thread.
extension FileIO {
    /// The names in folder `path`, without `.` and `..`, in no particular order. The corresponding
    /// C functions are `opendir`, `readdir` and `closedir`.
    public static func listDirectory(_ path: String) throws(SyscallError) -> [String] {
        var stream: OpaquePointer?
        _ = try syscallValue(.opendir) { () -> CInt in
            stream = opendir(path)
            return stream == nil ? -1 : 0
        }
        guard let dir = stream else { preconditionFailure("opendir gave neither a stream nor an error") }
        defer { closedir(dir) }
        var names: [String] = []
        while true {
            var entry: UnsafeMutablePointer<dirent>?
            // readdir reports the end and an error alike with NULL; only errno tells them apart.
            _ = try syscallValue(.readdir) { () -> CInt in
                Glibc.errno = 0
                entry = readdir(dir)
                return entry == nil && Glibc.errno != 0 ? -1 : 0
            }
            guard let entry else { return names }
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    /// Creates the folder `path` with permission bits `mode` (less the umask). The corresponding C
    /// function is `mkdir`.
    public static func makeDirectory(_ path: String, mode: UInt32 = 0o755) throws(SyscallError) {
        _ = try syscallValue(.mkdir) { Glibc.mkdir(path, mode_t(mode)) }
    }

    /// The absolute path `path` leads to once every symbolic link and `.`/`..` is resolved, or `nil`
    /// when it leads nowhere (`ENOENT`, `ENOTDIR`: a missing file or a dangling link). The
    /// corresponding C function is `realpath`.
    public static func resolvedPath(_ path: String) throws(SyscallError) -> String? {
        var resolved: UnsafeMutablePointer<CChar>?
        do {
            _ = try syscallValue(.realpath) { () -> CInt in
                resolved = realpath(path, nil)
                return resolved == nil ? -1 : 0
            }
        } catch  where error.errno == .noSuchFileOrDirectory || error.errno == .notDirectory {
            return nil
        }
        guard let resolved else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
