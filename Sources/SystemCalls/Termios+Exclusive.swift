import CAccessoryShims

extension Termios {
    /// Lifts `TIOCEXCL`, so that other processes may open the terminal again. `TIOCNXCL`.
    /// Any thread.
    public static func clearExclusive(_ fd: CInt) throws(SyscallError) {
        _ = try syscallValue(.ioctl, fd: fd) { cas_ioctl_none(fd, CAS_TIOCNXCL) }
    }
}
