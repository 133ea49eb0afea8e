import Glibc

extension Termios {
    /// `settings` in raw mode, as `cfmakeraw` makes them: no echo, no line editing, no signals
    /// from keys (Ctrl-C is a byte like any other), no CR/LF translation either way, 8 bits, and
    /// a read returns as soon as one byte is there. Any thread (a pure function).
    public static func raw(_ settings: Settings) -> Settings {
        var t = settings
        t.c_iflag &= ~UInt32(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON)
        t.c_oflag &= ~UInt32(OPOST)
        t.c_lflag &= ~UInt32(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
        t.c_cflag &= ~UInt32(CSIZE | PARENB)
        t.c_cflag |= UInt32(CS8)
        withUnsafeMutableBytes(of: &t.c_cc) { cc in
            cc[Termios.vmin] = 1
            cc[Termios.vtime] = 0
        }
        return t
    }
}

extension FileIO {
    /// Whether `O_NONBLOCK` is set on `fd`'s open file description (shared with every descriptor
    /// duplicated from it: a shell's terminal on 0, 1 and 2). The corresponding C function is `fcntl`.
    public static func isNonBlocking(_ fd: CInt) throws(SyscallError) -> Bool {
        let flags = try syscallValue(.fcntl, fd: fd) { Glibc.fcntl(fd, F_GETFL) }
        return flags & O_NONBLOCK != 0
    }
}
