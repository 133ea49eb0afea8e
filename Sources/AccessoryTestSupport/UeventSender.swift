import SystemCalls

/// Sends udev-format messages (``UeventMessage``) to netlink group 2, where every libudev
/// "udev" monitor in this network namespace receives them as if udevd had sent them. Needs uid 0
/// and `CAP_NET_ADMIN` over the namespace: run it inside `unshare -rn` (see ``HotplugNamespace``),
/// never on the host, whose real listeners would see fake devices.
///
/// Any thread, one owner at a time (it is moved, never shared).
package struct UeventSender: ~Copyable {
    private let socket: OwnedFD
    private var nextSeqnum: UInt64 = 1

    package init() throws(SyscallError) {
        socket = try Netlink.ueventSocket()
    }

    /// Sends `message` as it is.
    package func send(_ message: UeventMessage) throws(SyscallError) {
        let bytes = message.encoded()
        switch try Netlink.multicast(socket.rawValue, bytes, groups: Netlink.udevGroup) {
        case .processed: return
        // A datagram socket only blocks when the kernel is out of buffer memory: a failure here.
        case .wouldBlock: throw SyscallError(.sendto, .resourceTemporarilyUnavailable)
        }
    }

    /// Sends a `tty` event with the next sequence number and returns the message sent.
    @discardableResult
    package mutating func send(
        action: String,
        devPath: String,
        devName: String? = nil,
        subsystem: String = "tty",
        properties: [UeventMessage.Property] = []
    ) throws(SyscallError) -> UeventMessage {
        let message = UeventMessage(
            action: action,
            devPath: devPath,
            subsystem: subsystem,
            devName: devName,
            seqnum: nextSeqnum,
            extra: properties
        )
        nextSeqnum += 1
        try send(message)
        return message
    }
}
