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

    /// A datagram received with the descriptors attached to it (`SCM_RIGHTS`), which the receiver
    /// now owns, and its sender's credentials when the socket has `SO_PASSCRED`.
    public struct DatagramWithDescriptors: Sendable, Equatable {
        public var bytes: [UInt8]
        public var descriptors: [CInt]
        public var senderPID: pid_t?
        public var senderUID: uid_t?
    }

    /// A new, unbound Unix datagram socket (non-blocking, close-on-exec): what `sd_notify` sends
    /// from, and what a test binds to receive notifications. The corresponding C function is
    /// `socket`. Any thread.
    public static func unixDatagram() throws(SyscallError) -> OwnedFD {
        try socket(domain: AF_UNIX, type: CAS_SOCK_DGRAM)
    }

    /// Sends one datagram to `address` with `descriptors` (1 ... 16) attached (`SCM_RIGHTS`): the
    /// receiver gets its own copies; the sender's stay open. The corresponding C function is
    /// `sendmsg`. Any thread.
    public static func sendTo(_ fd: CInt, _ bytes: [UInt8], _ address: UnixAddress, passing descriptors: [CInt])
        throws(SyscallError) -> IOResult<Int>
    {
        try syscall(.sendmsg, fd: fd, wouldBlockAllowed: true) { _ in
            bytes.withUnsafeBytes { buf in
                descriptors.withUnsafeBufferPointer { fds in
                    address.withC {
                        cas_sendto_unix_with_fds(
                            fd,
                            buf.baseAddress,
                            buf.count,
                            $0,
                            $1,
                            fds.baseAddress,
                            CInt(fds.count)
                        )
                    }
                }
            }
        }
    }

    /// Receives one datagram (truncated to `max` bytes), the descriptors attached to it (at most
    /// 16 kept, close-on-exec, owned by the caller) and the sender's credentials (with
    /// `SO_PASSCRED`), or `.wouldBlock` when none is queued. The corresponding C function is
    /// `recvmsg`. Any thread.
    public static func receiveWithDescriptors(_ fd: CInt, max: Int = 4096) throws(SyscallError)
        -> IOResult<DatagramWithDescriptors>
    {
        var buffer = [UInt8](repeating: 0, count: max)
        var fds = [CInt](repeating: -1, count: 16)
        var count: CInt = 0
        var pid: pid_t = -1
        var uid: uid_t = 0
        let result = try syscall(.recvmsg, fd: fd, wouldBlockAllowed: true) { _ in
            buffer.withUnsafeMutableBytes { b in
                fds.withUnsafeMutableBufferPointer {
                    cas_recv_with_fds(fd, b.baseAddress, b.count, $0.baseAddress, 16, &count, &pid, &uid)
                }
            }
        }
        switch result {
        case .wouldBlock: return .wouldBlock
        case .processed(let n):
            return .processed(
                DatagramWithDescriptors(
                    bytes: Array(buffer.prefix(n)),
                    descriptors: Array(fds.prefix(Int(count))),
                    senderPID: pid == -1 ? nil : pid,
                    senderUID: pid == -1 ? nil : uid
                )
            )
        }
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
