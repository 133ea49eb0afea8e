import CAccessoryShims
import Glibc

extension Socket {
    /// A datagram received with the sender's credentials (`SCM_CREDENTIALS`).
    public struct CredentialedDatagram: Sendable, Equatable {
        public var bytes: [UInt8]
        /// The sender's pid and uid, or nil when the kernel attached none (the receiving socket
        /// lacks `SO_PASSCRED`).
        public var senderPID: pid_t?
        public var senderUID: uid_t?
    }

    /// A new, unbound Unix datagram socket (non-blocking, close-on-exec): what `sd_notify` sends
    /// from, and what a test binds to receive notifications. The corresponding C function is
    /// `socket`. Any thread.
    public static func unixDatagram() throws(SyscallError) -> OwnedFD {
        try socket(domain: AF_UNIX, type: CAS_SOCK_DGRAM)
    }

    /// Receives one datagram (truncated to `max` bytes) and its sender's credentials, or
    /// `.wouldBlock` when none is queued. Turn on `SO_PASSCRED` on the socket first to get the
    /// credentials. The corresponding C function is `recvmsg`. Any thread.
    public static func receiveWithCredentials(_ fd: CInt, max: Int = 4096) throws(SyscallError)
        -> IOResult<CredentialedDatagram>
    {
        var buffer = [UInt8](repeating: 0, count: max)
        var pid: pid_t = -1
        var uid: uid_t = 0
        let result = try syscall(.recvmsg, fd: fd, wouldBlockAllowed: true) { _ in
            buffer.withUnsafeMutableBytes { cas_recv_with_credentials(fd, $0.baseAddress, $0.count, &pid, &uid) }
        }
        switch result {
        case .wouldBlock: return .wouldBlock
        case .processed(let count):
            return .processed(
                CredentialedDatagram(
                    bytes: Array(buffer.prefix(count)),
                    senderPID: pid == -1 ? nil : pid,
                    senderUID: pid == -1 ? nil : uid
                )
            )
        }
    }
}
