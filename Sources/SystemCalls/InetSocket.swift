import CAccessoryShims
import Glibc

/// One end of a TCP connection: address family, address bytes (4 or 16, network order), port.
///
/// Threading: a value. Any thread.
public struct InetEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// `AF_INET` or `AF_INET6`.
    public var family: CInt
    public var address: [UInt8]
    public var port: UInt16

    public init(family: CInt, address: [UInt8], port: UInt16) {
        self.family = family
        self.address = address
        self.port = port
    }

    /// IPv4 when the address has 4 bytes, IPv6 when 16.
    public init(address: [UInt8], port: UInt16) {
        self.init(family: address.count == 4 ? CAS_AF_INET : CAS_AF_INET6, address: address, port: port)
    }

    /// `127.0.0.1:4001`, `[::1]:4001`.
    public var description: String {
        if family == CAS_AF_INET { return address.map(String.init).joined(separator: ".") + ":\(port)" }
        let groups = stride(from: 0, to: address.count, by: 2).map {
            String(UInt16(address[$0]) << 8 | UInt16(address[$0 + 1]), radix: 16)
        }
        return "[" + groups.joined(separator: ":") + "]:\(port)"
    }
}

/// TCP sockets for the loopback listeners: listening, the two ends of a connection, and (for
/// tests) connecting. Sockets are non-blocking and close-on-exec. Any thread.
public enum InetSocket {
    /// A listening TCP socket bound to `endpoint` (port 0: the kernel picks one). The
    /// corresponding C functions are `socket`, `setsockopt`, `bind` and `listen`.
    public static func listening(on endpoint: InetEndpoint, backlog: CInt = 16) throws(SyscallError) -> OwnedFD {
        let fd = try Socket.socket(domain: endpoint.family, type: CAS_SOCK_STREAM)
        _ = try syscallValue(.bind, fd: fd.rawValue) {
            endpoint.address.withUnsafeBufferPointer {
                cas_bind_inet(fd.rawValue, endpoint.family, $0.baseAddress, endpoint.port)
            }
        }
        try Socket.listen(fd.rawValue, backlog: backlog)
        return fd
    }

    /// The socket's own end. The corresponding C function is `getsockname`.
    public static func localEnd(_ fd: CInt) throws(SyscallError) -> InetEndpoint {
        try name(fd, peer: false)
    }

    /// The connection's other end. The corresponding C function is `getpeername`.
    public static func remoteEnd(_ fd: CInt) throws(SyscallError) -> InetEndpoint {
        try name(fd, peer: true)
    }

    /// A connection to `endpoint`, made blocking (tests, and tools that wait for it anyway), then
    /// non-blocking. The corresponding C function is `connect`.
    public static func connect(to endpoint: InetEndpoint) throws(SyscallError) -> OwnedFD {
        let fd = try Socket.socket(domain: endpoint.family, type: CAS_SOCK_STREAM)
        try FileIO.setNonBlocking(fd.rawValue, false)
        _ = try syscallValue(.connect, fd: fd.rawValue) {
            endpoint.address.withUnsafeBufferPointer {
                cas_connect_inet(fd.rawValue, endpoint.family, $0.baseAddress, endpoint.port)
            }
        }
        try FileIO.setNonBlocking(fd.rawValue, true)
        return fd
    }

    private static func name(_ fd: CInt, peer: Bool) throws(SyscallError) -> InetEndpoint {
        var family: CInt = 0
        var port: UInt16 = 0
        var bytes = [UInt8](repeating: 0, count: 16)
        _ = try syscallValue(peer ? .getpeername : .getsockname, fd: fd) {
            bytes.withUnsafeMutableBufferPointer { cas_inet_name(fd, peer ? 1 : 0, &family, $0.baseAddress, &port) }
        }
        return InetEndpoint(family: family, address: Array(bytes.prefix(family == CAS_AF_INET ? 4 : 16)), port: port)
    }
}
