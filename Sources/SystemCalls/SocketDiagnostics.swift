import CAccessoryShims
import Glibc

/// Who owns the socket at the other end of a loopback TCP connection, asked of the kernel
/// (`NETLINK_SOCK_DIAG`, `inet_diag`, by the exact four-tuple). A TCP connection carries no
/// credentials (`SO_PEERCRED` is for Unix sockets), but on loopback both ends are this host's
/// sockets, and the kernel knows the uid that created each.
///
/// Any thread (one netlink socket per lookup).
public enum SocketDiagnostics {
    /// How long ``ownerUID(local:remote:)`` waits for the kernel's answer (it is normally queued
    /// before `send` returns).
    static let answerWaitMs: CInt = 200

    /// The uid owning the TCP socket whose own end is `local` and whose peer is `remote`, or nil
    /// when the kernel has no such socket (it closed meanwhile, or it is not on this host).
    /// Blocks up to ``answerWaitMs`` per message: never on a loop (the daemon's listeners use
    /// ``SocketOwnerQuery`` on the device loop); kept for tests and tools, package-internal.
    package static func ownerUID(local: InetEndpoint, remote: InetEndpoint) throws(SyscallError) -> uid_t? {
        guard let query = try SocketOwnerQuery(local: local, remote: remote) else { return nil }
        defer { query.close() }
        // A few messages at most (the record, then done or an error); bounded in count and time.
        for _ in 0..<4 {
            guard try FileIO.waitReadable(query.fd, milliseconds: answerWaitMs) else {
                throw SyscallError(.recv, .timedOut)
            }
            switch try query.readAnswer() {
            case .owner(let uid): return uid
            case .noSocket: return nil
            case .pending: continue
            }
        }
        return nil
    }
}

/// One question to the kernel about a socket's owner (``SocketDiagnostics``), asked without
/// waiting: the answer comes on ``fd`` (non-blocking), which a loop watches for readability and
/// then calls ``readAnswer()``.
///
/// Threading: the thread that made it (a loop's); not shared.
public final class SocketOwnerQuery {
    /// The answer: the owner, no such socket, or nothing final yet.
    ///
    /// Threading: a value. Any thread.
    public enum Answer: Sendable, Equatable {
        case owner(uid_t)
        case noSocket
        case pending
    }

    private var socket: OwnedFD?
    /// The netlink socket the answer comes on (the number stays after ``close()``: do not use it
    /// then).
    public let fd: CInt
    private let sequence: UInt32

    /// Sends the question; nil when the two ends cannot belong to one connection (different
    /// families).
    public init?(local: InetEndpoint, remote: InetEndpoint) throws(SyscallError) {
        guard local.family == remote.family, local.address.count == remote.address.count else { return nil }
        let socket = try Socket.socket(domain: CAS_AF_NETLINK, type: CAS_SOCK_RAW, protocol: CAS_NETLINK_SOCK_DIAG)
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
        _ = try FileIO.write(socket.rawValue, Array(request.prefix(Int(length))))
        fd = socket.rawValue
        sequence = seq
        self.socket = consume socket
    }

    /// Reads one message of the kernel's, if one is there.
    public func readAnswer() throws(SyscallError) -> Answer {
        guard let fd = socket?.rawValue else { return .pending }
        guard let answer = try FileIO.read(fd, max: 8192), !answer.isEmpty else { return .pending }
        var uid: UInt32 = 0
        let r = answer.withUnsafeBufferPointer { cas_inet_diag_uid($0.baseAddress, $0.count, sequence, &uid) }
        if r == 1 { return .owner(uid) }
        if r == -ENOENT { return .noSocket }
        if r < 0 { throw SyscallError(.recv, Errno(rawValue: -r)) }
        return .pending
    }

    /// Closes the netlink socket (also at deinit).
    public func close() { socket.take()?.close() }
}
