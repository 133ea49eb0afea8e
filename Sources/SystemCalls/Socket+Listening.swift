import CAccessoryShims
import Glibc

extension Socket {
    /// A new, unconnected Unix stream socket (non-blocking, close-on-exec), for callers that do
    /// not import Glibc. The corresponding C function is `socket`. Any thread.
    public static func unixStream() throws(SyscallError) -> OwnedFD {
        try socket(domain: AF_UNIX, type: CAS_SOCK_STREAM)
    }

    /// An integer socket option (`SO_ACCEPTCONN`, `SO_DOMAIN`, `SO_TYPE`, …). The corresponding C
    /// function is `getsockopt`. Any thread.
    public static func intOption(_ fd: CInt, level: CInt, name: CInt) throws(SyscallError) -> CInt {
        var value: CInt = 0
        var length = socklen_t(MemoryLayout<CInt>.size)
        _ = try syscallValue(.getsockopt, fd: fd) { Glibc.getsockopt(fd, level, name, &value, &length) }
        return value
    }

    /// Whether `fd` is a Unix-domain stream socket in the listening state (what systemd's socket
    /// activation passes for a `ListenStream=` path). Any thread.
    public static func isListeningUnixStream(_ fd: CInt) throws(SyscallError) -> Bool {
        let domain = try intOption(fd, level: SOL_SOCKET, name: SO_DOMAIN)
        let type = try intOption(fd, level: SOL_SOCKET, name: SO_TYPE)
        let listening = try intOption(fd, level: SOL_SOCKET, name: SO_ACCEPTCONN)
        return domain == AF_UNIX && type == CInt(SOCK_STREAM.rawValue) && listening != 0
    }

    /// The supplementary groups of the peer process as they were when it connected
    /// (`SO_PEERGROUPS`, Linux 4.13 and later; older kernels give `ENOPROTOOPT`). The
    /// corresponding C function is `getsockopt`. Any thread.
    public static func peerGroups(_ fd: CInt) throws(SyscallError) -> [UInt32] {
        var capacity = 64
        while true {
            var groups = [gid_t](repeating: 0, count: capacity)
            var length = socklen_t(capacity * MemoryLayout<gid_t>.size)
            do {
                _ = try syscallValue(.getsockoptPeerGroups, fd: fd) {
                    groups.withUnsafeMutableBytes {
                        Glibc.getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, $0.baseAddress, &length)
                    }
                }
            } catch  where error.errno == .outOfRange && capacity < 65_536 {
                // `length` now holds the size needed.
                capacity = max(capacity * 2, Int(length) / MemoryLayout<gid_t>.size)
                continue
            }
            return Array(groups.prefix(Int(length) / MemoryLayout<gid_t>.size))
        }
    }
}

extension Socket {
    /// Shuts down the sending side of a connected socket: the peer reads end of file, and can
    /// still answer. The corresponding C function is `shutdown` with `SHUT_WR`. Any thread.
    public static func shutdownWriting(_ fd: CInt) throws(SyscallError) {
        _ = try syscallValue(.shutdown, fd: fd) { Glibc.shutdown(fd, CInt(SHUT_WR)) }
    }
}
