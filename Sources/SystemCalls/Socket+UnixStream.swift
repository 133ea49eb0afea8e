import CAccessoryShims
import Glibc

extension Socket {
    /// A Unix stream socket, non-blocking and close-on-exec, connected to `address`.
    ///
    /// A Unix stream connect completes at once or fails; there is no `EINPROGRESS`. A listener
    /// whose backlog is full gives `EAGAIN`, thrown like any other error (retry later). Any thread.
    public static func connectedUnixStream(to address: UnixAddress) throws(SyscallError) -> OwnedFD {
        let fd = try socket(domain: AF_UNIX, type: CAS_SOCK_STREAM)
        _ = try syscallValue(.connect, fd: fd.rawValue) { address.withC { cas_connect_unix(fd.rawValue, $0, $1) } }
        return fd
    }
}
