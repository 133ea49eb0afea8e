import CAccessoryShims
import Glibc

/// Who owns the socket at the other end of a loopback TCP connection, asked of the kernel
/// (`NETLINK_SOCK_DIAG`, `inet_diag`, by the exact four-tuple). A TCP connection carries no
/// credentials (`SO_PEERCRED` is for Unix sockets), but on loopback both ends are this host's
/// sockets, and the kernel knows the uid that created each.
///
/// Any thread (one netlink socket per lookup).
public enum SocketDiagnostics {
    /// How long a lookup waits for the kernel's answer (it is normally queued before `send`
    /// returns).
    static let answerWaitMs: CInt = 200

    /// The uid owning the TCP socket whose own end is `local` and whose peer is `remote`, or nil
    /// when the kernel has no such socket (it closed meanwhile, or it is not on this host).
    public static func ownerUID(local: InetEndpoint, remote: InetEndpoint) throws(SyscallError) -> uid_t? {
        guard local.family == remote.family, local.address.count == remote.address.count else { return nil }
        // Closed when `socket` goes out of scope (OwnedFD's deinit).
        let socket = try Socket.socket(domain: CAS_AF_NETLINK, type: CAS_SOCK_RAW, protocol: CAS_NETLINK_SOCK_DIAG)
        let fd = socket.rawValue
        let seq = UInt32.random(in: 1...UInt32.max)
        var request = [UInt8](repeating: 0, count: 256)
        let length = request.withUnsafeMutableBufferPointer { buf in
            local.address.withUnsafeBufferPointer { src in
                remote.address.withUnsafeBufferPointer { dst in
                    cas_inet_diag_request(
                        buf.baseAddress,
                        buf.count,
                        local.family,
                        src.baseAddress,
                        local.port,
                        dst.baseAddress,
                        remote.port,
                        seq
                    )
                }
            }
        }
        precondition(length > 0, "the inet_diag request fits its buffer")
        // An unconnected netlink socket's writes go to the kernel.
        _ = try FileIO.write(fd, Array(request.prefix(Int(length))))
        // A few messages at most (the record, then done or an error); bounded in count and time.
        for _ in 0..<4 {
            guard try FileIO.waitReadable(fd, milliseconds: answerWaitMs) else {
                throw SyscallError(.recv, .timedOut)
            }
            guard let answer = try FileIO.read(fd, max: 8192), !answer.isEmpty else { continue }
            var uid: UInt32 = 0
            let r = answer.withUnsafeBufferPointer { cas_inet_diag_uid($0.baseAddress, $0.count, seq, &uid) }
            if r == 1 { return uid }
            if r == -ENOENT { return nil }
            if r < 0 { throw SyscallError(.recv, Errno(rawValue: -r)) }
        }
        return nil
    }
}
