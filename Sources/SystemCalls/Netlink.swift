import CAccessoryShims
import Glibc

/// Kernel uevent netlink sockets (`NETLINK_KOBJECT_UEVENT`): what a udev monitor listens on.
/// The daemon receives through libudev; this wrapper is the sending side, used by the test sender
/// of udev-format messages. Any thread.
public enum Netlink {
    /// The multicast group the kernel sends raw uevents to.
    public static let kernelGroup: UInt32 = 1
    /// The multicast group udevd (and libudev monitors of the "udev" source) use.
    public static let udevGroup: UInt32 = 2

    /// A uevent socket bound to a kernel-chosen port id and no groups (for sending). Non-blocking
    /// and close-on-exec. The corresponding C functions are `socket` and `bind`.
    public static func ueventSocket() throws(SyscallError) -> OwnedFD {
        let fd = try Socket.socket(domain: CAS_AF_NETLINK, type: CAS_SOCK_RAW, protocol: CAS_NETLINK_KOBJECT_UEVENT)
        _ = try syscallValue(.bind, fd: fd.rawValue) { cas_bind_netlink(fd.rawValue, 0) }
        return fd
    }

    /// Multicasts one datagram to `groups` (a bit mask) of the uevent family.
    ///
    /// The kernel also tries to deliver the datagram to its own port id 0, which has no input
    /// handler, and reports that as `ECONNREFUSED` after the multicast is done; so that error means
    /// success here, as in systemd's sender. Sending to a group needs `CAP_NET_ADMIN` in the user
    /// namespace owning the network namespace (root, or uid 0 inside `unshare -rn`): else `EPERM`.
    /// The corresponding C function is `sendto`.
    public static func multicast(_ fd: CInt, _ bytes: [UInt8], groups: UInt32) throws(SyscallError) -> IOResult<Int> {
        do {
            return try syscall(.sendto, fd: fd, wouldBlockAllowed: true) { _ in
                bytes.withUnsafeBytes { cas_sendto_netlink(fd, $0.baseAddress, $0.count, groups) }
            }
        } catch  where error.errno == .connectionRefused {
            return .processed(bytes.count)
        }
    }
}
