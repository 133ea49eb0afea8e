import CAccessoryShims
import SystemCalls

/// The three system calls an RFCOMM connection makes, as values, so that tests can run the
/// connect state machine over a Unix socket or socketpair stand-in. ``bluetooth`` is the real one.
///
/// Any thread (a value; the closures run on the connector's loop thread).
public struct RFCOMMSocketDriver: Sendable {
    /// Makes a non-blocking, close-on-exec stream socket.
    public var makeSocket: @Sendable () throws(SyscallError) -> OwnedFD
    /// Starts connecting: true when connected at once, false for "in progress" (`EINPROGRESS`).
    public var connect: @Sendable (_ fd: CInt, _ endpoint: RFCOMMEndpoint) throws(SyscallError) -> Bool
    /// The outcome of an in-progress connect (`SO_ERROR`): nil for success.
    public var pendingError: @Sendable (_ fd: CInt) throws(SyscallError) -> Errno?

    public init(
        makeSocket: @escaping @Sendable () throws(SyscallError) -> OwnedFD,
        connect: @escaping @Sendable (_ fd: CInt, _ endpoint: RFCOMMEndpoint) throws(SyscallError) -> Bool,
        pendingError: @escaping @Sendable (_ fd: CInt) throws(SyscallError) -> Errno? = { fd throws(SyscallError) in
            try Socket.pendingError(fd)
        }
    ) {
        self.makeSocket = makeSocket
        self.connect = connect
        self.pendingError = pendingError
    }

    /// `socket(AF_BLUETOOTH, SOCK_STREAM|SOCK_NONBLOCK|SOCK_CLOEXEC, BTPROTO_RFCOMM)` and
    /// `connect(sockaddr_rc)`.
    public static let bluetooth = RFCOMMSocketDriver(
        makeSocket: { () throws(SyscallError) in
            try Socket.socket(domain: CAS_AF_BLUETOOTH, type: CAS_SOCK_STREAM, protocol: CAS_BTPROTO_RFCOMM)
        },
        connect: { fd, endpoint throws(SyscallError) in
            try Socket.connectRFCOMM(fd, bdaddr: endpoint.address.bdaddr, channel: endpoint.channel)
        }
    )
}
