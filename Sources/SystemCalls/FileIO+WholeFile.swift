import Glibc

/// Reading and writing a small file in one call (configuration files, `/proc` entries, logs).
/// Any thread.
extension FileIO {
    /// The whole content of the file at `path`; longer than `limit` bytes throws `read`'s
    /// `EFBIG` rather than growing without bound.
    public static func readFile(_ path: String, limit: Int = 16 << 20) throws(SyscallError) -> [UInt8] {
        // The descriptor is closed when `fd` goes out of scope.
        let fd = try FileIO.open(path, flags: O_RDONLY)
        var out: [UInt8] = []
        while true {
            // A regular or /proc file never reports EAGAIN; nil would mean try again.
            guard let chunk = try FileIO.read(fd.rawValue, max: 65_536) else { continue }
            if chunk.isEmpty { return out }
            out += chunk
            if out.count > limit { throw SyscallError(.read, .fileTooLarge) }
        }
    }

    /// The text of the file at `path`, or "" if it cannot be read (for best-effort readers such
    /// as tests, benchmarks and `/proc` statistics).
    public static func readText(_ path: String) -> String {
        String(decoding: (try? readFile(path)) ?? [], as: UTF8.self)
    }

    /// Creates or truncates `path` (mode `mode`) and writes `text` to it.
    public static func writeFile(_ path: String, _ text: String, mode: mode_t = 0o644) throws(SyscallError) {
        let fd = try FileIO.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: mode)
        try FileIO.writeAll(fd.rawValue, Array(text.utf8))
    }
}
