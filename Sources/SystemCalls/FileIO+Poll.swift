import Glibc

extension FileIO {
    /// Waits at most `milliseconds` (0: not at all) for `fd` to be readable, or at its end or in
    /// error (a read then returns at once); true if it is. For a thread that blocks on one
    /// descriptor and must also notice time passing. The corresponding C function is `poll`.
    /// Any thread.
    public static func waitReadable(_ fd: CInt, milliseconds: CInt) throws(SyscallError) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return try syscallValue(.poll, fd: fd) { Glibc.poll(&entry, 1, milliseconds) } > 0
    }
}
