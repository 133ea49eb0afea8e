import Glibc

/// Users and groups: name lookups in the system's databases (`/etc/group`, NSS) and the process's
/// own identity. Any thread.
public enum UserDatabase {
    /// The id of the group called `name`, or `nil` if there is none. The corresponding C function
    /// is `getgrnam_r`.
    public static func groupID(named name: String) throws(SyscallError) -> UInt32? {
        var entry = group()
        return try lookup(.getgrnam_r) { buffer, result in
            var found: UnsafeMutablePointer<group>? = nil
            let rc = getgrnam_r(name, &entry, buffer.baseAddress!, buffer.count, &found)
            result = found?.pointee.gr_gid
            return rc
        }
    }

    /// The id of the user called `name`, or `nil` if there is none. The corresponding C function
    /// is `getpwnam_r`.
    public static func userID(named name: String) throws(SyscallError) -> UInt32? {
        var entry = passwd()
        return try lookup(.getpwnam_r) { buffer, result in
            var found: UnsafeMutablePointer<passwd>? = nil
            let rc = getpwnam_r(name, &entry, buffer.baseAddress!, buffer.count, &found)
            result = found?.pointee.pw_uid
            return rc
        }
    }

    /// The process's effective user id. The corresponding C function is `geteuid`.
    public static var effectiveUserID: UInt32 { geteuid() }

    /// The process's effective group id. The corresponding C function is `getegid`.
    public static var effectiveGroupID: UInt32 { getegid() }

    /// The process id. The corresponding C function is `getpid`.
    public static var processID: Int32 { getpid() }

    /// Whether this process may give a file it owns to another user or to any group: root, or
    /// `CAP_CHOWN` in its effective set (read from `/proc/self/status`, which a sandbox with
    /// `ProcSubset=pid` still shows). Without it, `fchown` may only change the group, to one the
    /// process is in. The corresponding C function is `capget`, read through procfs instead
    /// because a system-call filter may deny `capget` where it allows reading a file.
    public static var mayChangeOwners: Bool {
        guard let effective = effectiveCapabilities else { return geteuid() == 0 }
        return effective & (1 << 0) != 0  // CAP_CHOWN is capability 0
    }

    /// Whether the process is in group `gid`: its effective group or a supplementary one. The
    /// corresponding C functions are `getegid` and `getgroups`.
    public static func isMember(ofGroup gid: UInt32) -> Bool {
        if getegid() == gid { return true }
        let count = getgroups(0, nil)
        guard count > 0 else { return false }
        var groups = [gid_t](repeating: 0, count: Int(count))
        let got = getgroups(count, &groups)
        return got > 0 && groups.prefix(Int(got)).contains(gid)
    }

    /// The `CapEff:` mask of `/proc/self/status`, or nil when it cannot be read.
    static var effectiveCapabilities: UInt64? {
        guard let text = try? FileIO.readFile("/proc/self/status", limit: 16384) else { return nil }
        for line in String(decoding: text, as: UTF8.self).split(separator: "\n") where line.hasPrefix("CapEff:") {
            return UInt64(line.dropFirst("CapEff:".count).filter { $0 != " " && $0 != "\t" }, radix: 16)
        }
        return nil
    }

    /// Runs a `get*nam_r` call, growing its buffer on `ERANGE`. These calls return the error
    /// number instead of setting `errno`; "not found" is a zero return with no result.
    private static func lookup(
        _ name: SyscallName,
        _ body: (UnsafeMutableBufferPointer<CChar>, inout UInt32?) -> CInt
    ) throws(SyscallError) -> UInt32? {
        var size = 1024
        while true {
            var result: UInt32? = nil
            let rc = withUnsafeTemporaryAllocation(of: CChar.self, capacity: size) { body($0, &result) }
            switch rc {
            case 0: return result
            case ERANGE where size < 1 << 20: size *= 4
            case EINTR: continue
            // "Not found" may also be reported as one of these by some NSS modules.
            case ENOENT, ESRCH, EBADF, EPERM: return nil
            default: throw SyscallError(name, Errno(rawValue: rc))
            }
        }
    }
}
