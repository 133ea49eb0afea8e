import Glibc

extension UserDatabase {
    /// A user's primary group and group list (`/etc/passwd`, `/etc/group`, NSS), as a login would
    /// have them; nil when the uid has no entry. For credentials the kernel gives without groups
    /// (the owner of a TCP socket). The corresponding C functions are `getpwuid_r` and
    /// `getgrouplist`. Any thread.
    public static func groups(ofUser uid: UInt32) throws(SyscallError) -> (primary: UInt32, all: [UInt32])? {
        var entry = passwd()
        var name = ""
        var primary: UInt32 = 0
        var size = 1024
        while true {
            var found: UnsafeMutablePointer<passwd>? = nil
            let rc = withUnsafeTemporaryAllocation(of: CChar.self, capacity: size) { buffer in
                let rc = getpwuid_r(uid, &entry, buffer.baseAddress!, buffer.count, &found)
                if rc == 0, let f = found {
                    name = String(cString: f.pointee.pw_name)
                    primary = f.pointee.pw_gid
                }
                return rc
            }
            if rc == ERANGE && size < 1 << 20 {
                size *= 4
                continue
            }
            if rc == EINTR { continue }
            if rc == 0 && found == nil { return nil }
            if rc == ENOENT || rc == ESRCH || rc == EBADF || rc == EPERM { return nil }
            if rc != 0 { throw SyscallError(.getpwuid_r, Errno(rawValue: rc)) }
            break
        }
        var count: CInt = 64
        // Grown until the list fits; bounded by NGROUPS_MAX (65536).
        while count <= 65_536 {
            var list = [gid_t](repeating: 0, count: Int(count))
            var n = count
            if getgrouplist(name, primary, &list, &n) >= 0 { return (primary, Array(list.prefix(Int(n)))) }
            count = max(n, count * 2)
        }
        throw SyscallError(.getgrouplist, .outOfRange)
    }
}
