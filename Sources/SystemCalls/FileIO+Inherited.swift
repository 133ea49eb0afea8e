import Glibc

extension FileIO {
    /// Whether `fd` is an open descriptor of this process. For descriptors a parent claims to
    /// have passed (systemd's `LISTEN_FDS`), where a closed one is bad input, not a programmer
    /// error, so it must not reach a wrapper that traps on `EBADF`. The corresponding C function is
    /// `fcntl` with `F_GETFD`. Any thread.
    public static func isOpenDescriptor(_ fd: CInt) -> Bool {
        fd >= 0 && Glibc.fcntl(fd, F_GETFD) != -1
    }
}
