import CAccessoryShims
import Glibc

/// Socket calls: Unix-domain streams and datagrams, RFCOMM, peer credentials. Any thread.
///
/// Every socket is created non-blocking and close-on-exec.
public enum Socket {
    /// Who is on the other end of a Unix socket (`SO_PEERCRED`).
    public struct PeerCredentials: Sendable, Equatable {
        public var pid: pid_t
        public var uid: uid_t
        public var gid: gid_t

        /// Credentials with these ids (tests state the cases a rule must judge).
        public init(pid: pid_t, uid: uid_t, gid: gid_t) {
            self.pid = pid
            self.uid = uid
            self.gid = gid
        }
    }

    /// A Unix-domain socket address: a file path, or an abstract name (Linux's leading NUL; written
    /// `@name` by systemd's `NOTIFY_SOCKET`).
    public enum UnixAddress: Sendable, Equatable {
        case path(String)
        case abstract(String)

        /// `@name` → abstract, anything else → path.
        public init(systemdNotation s: String) {
            self = s.hasPrefix("@") ? .abstract(String(s.dropFirst())) : .path(s)
        }

        func withC<R>(_ body: (UnsafePointer<CChar>, CInt) -> R) -> R {
            switch self {
            case .path(let p): return p.withCString { body($0, 0) }
            case .abstract(let n): return n.withCString { body($0, 1) }
            }
        }
    }

    /// The corresponding C function is `socket`.
    public static func socket(domain: CInt, type: CInt, protocol proto: CInt = 0) throws(SyscallError) -> OwnedFD {
        OwnedFD(
            adopting: try syscallValue(.socket) {
                Glibc.socket(domain, type | CAS_SOCK_NONBLOCK | CAS_SOCK_CLOEXEC, proto)
            }
        )
    }

    /// A connected pair of Unix stream sockets. The corresponding C function is `socketpair`.
    public static func socketPair(type: CInt = CAS_SOCK_STREAM) throws(SyscallError) -> DescriptorPair {
        var fds: [CInt] = [-1, -1]
        _ = try syscallValue(.socketpair) {
            fds.withUnsafeMutableBufferPointer {
                Glibc.socketpair(AF_UNIX, type | CAS_SOCK_NONBLOCK | CAS_SOCK_CLOEXEC, 0, $0.baseAddress)
            }
        }
        return DescriptorPair(OwnedFD(adopting: fds[0]), OwnedFD(adopting: fds[1]))
    }

    /// The corresponding C function is `bind`.
    public static func bind(_ fd: CInt, _ address: UnixAddress) throws(SyscallError) {
        _ = try syscallValue(.bind, fd: fd) { address.withC { cas_bind_unix(fd, $0, $1) } }
    }

    /// The corresponding C function is `listen`.
    public static func listen(_ fd: CInt, backlog: CInt = 128) throws(SyscallError) {
        _ = try syscallValue(.listen, fd: fd) { Glibc.listen(fd, backlog) }
    }

    /// Accepts one connection, or `.wouldBlock` when none is pending. The new socket is
    /// non-blocking and close-on-exec. The corresponding C function is `accept4`.
    public static func accept(_ fd: CInt) throws(SyscallError) -> OwnedFD? {
        switch try syscall(
            .accept4,
            fd: fd,
            wouldBlockAllowed: true,
            { _ in
                cas_accept4(fd, CAS_SOCK_NONBLOCK | CAS_SOCK_CLOEXEC)
            }
        ) {
        case .processed(let c): return OwnedFD(adopting: c)
        case .wouldBlock: return nil
        }
    }

    /// Starts or completes a connection. `EINPROGRESS` is returned as `false` (wait for writable,
    /// then read `SO_ERROR`), `true` means connected now. The corresponding C function is `connect`.
    public static func connect(_ fd: CInt, _ address: UnixAddress) throws(SyscallError) -> Bool {
        do {
            _ = try syscallValue(.connect, fd: fd) { address.withC { cas_connect_unix(fd, $0, $1) } }
            return true
        } catch  where error.errno == .nowInProgress {
            return false
        }
    }

    /// Starts an RFCOMM connection to `address` (6 bytes, already in the kernel's little-endian
    /// `bdaddr_t` order) on `channel`. As ``connect(_:_:)`` for `EINPROGRESS`.
    public static func connectRFCOMM(_ fd: CInt, bdaddr: [UInt8], channel: UInt8) throws(SyscallError) -> Bool {
        precondition(bdaddr.count == 6)
        do {
            _ = try syscallValue(.connect, fd: fd) {
                bdaddr.withUnsafeBufferPointer { cas_connect_rfcomm(fd, $0.baseAddress, channel) }
            }
            return true
        } catch  where error.errno == .nowInProgress {
            return false
        }
    }

    /// Sends one datagram to `address`. The corresponding C function is `sendto`.
    public static func sendTo(_ fd: CInt, _ bytes: [UInt8], _ address: UnixAddress) throws(SyscallError)
        -> IOResult<Int>
    {
        try syscall(.sendto, fd: fd, wouldBlockAllowed: true) { _ in
            bytes.withUnsafeBytes { buf in address.withC { cas_sendto_unix(fd, buf.baseAddress, buf.count, $0, $1) } }
        }
    }

    /// The pending socket error (`SO_ERROR`), 0 for none. The corresponding C function is
    /// `getsockopt`.
    public static func pendingError(_ fd: CInt) throws(SyscallError) -> Errno? {
        var e: CInt = 0
        _ = try syscallValue(.getsockopt, fd: fd) { cas_so_error(fd, &e) }
        return e == 0 ? nil : Errno(rawValue: e)
    }

    /// The credentials of the peer process (`SO_PEERCRED`).
    public static func peerCredentials(_ fd: CInt) throws(SyscallError) -> PeerCredentials {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
        _ = try syscallValue(.getsockopt, fd: fd) { cas_peercred(fd, &pid, &uid, &gid) }
        return PeerCredentials(pid: pid, uid: uid, gid: gid)
    }

    /// Sets an integer socket option. The corresponding C function is `setsockopt`.
    public static func setOption(_ fd: CInt, level: CInt, name: CInt, value: CInt) throws(SyscallError) {
        _ = try syscallValue(.setsockopt, fd: fd) { cas_set_int_sockopt(fd, level, name, value) }
    }
}
