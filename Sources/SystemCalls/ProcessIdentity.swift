import Glibc

/// Who another process is, for an administrator's list of clients: its user's name and its
/// command name. Best effort: a process that has gone, or a user with no entry, gives nil.
/// Any thread.
public enum ProcessIdentity {
    /// The name of user `uid` (`/etc/passwd`, NSS), or nil. The corresponding C function is
    /// `getpwuid_r`.
    public static func userName(ofID uid: UInt32) -> String? {
        var size = 1024
        while size <= 1 << 20 {
            var entry = passwd()
            var found: UnsafeMutablePointer<passwd>? = nil
            let (rc, name) = withUnsafeTemporaryAllocation(of: CChar.self, capacity: size) { buffer in
                let rc = getpwuid_r(uid, &entry, buffer.baseAddress!, buffer.count, &found)
                return (rc, found.flatMap { $0.pointee.pw_name.map { String(cString: $0) } })
            }
            if rc == ERANGE {
                size *= 4
                continue
            }
            return rc == 0 ? name : nil
        }
        return nil
    }

    /// The command name of process `pid` (`/proc/<pid>/comm`: at most 15 characters, set by the
    /// process itself, so not proof of what it runs), or nil.
    public static func commandName(ofProcess pid: Int32) -> String? {
        guard pid > 0, let bytes = try? FileIO.readFile("/proc/\(pid)/comm", limit: 256) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        let trimmed = text.hasSuffix("\n") ? String(text.dropLast()) : text
        return trimmed.isEmpty ? nil : trimmed
    }
}
