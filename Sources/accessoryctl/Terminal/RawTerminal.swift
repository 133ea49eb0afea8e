import SystemCalls

/// Standard input's terminal in raw mode for an interactive `attach`, and the way back.
///
/// The settings and the blocking flag are saved on creation, before anything changes them (the
/// byte pump sets `O_NONBLOCK` on standard input as it starts), raw mode starts with
/// ``enterRawMode()``, and ``restore()`` puts both back; the command calls it on every way out (the session's end, a signal, the device going away, an
/// error); a second call does nothing. The terminal's open file description is shared with the
/// shell, so `O_NONBLOCK` (which the byte pump sets) is put back as well: left set, it would
/// break the next program in that terminal.
///
/// Threading: the main thread, which runs the session.
final class RawTerminal {
    private let fd: CInt
    private let saved: Termios.Settings
    private let wasNonBlocking: Bool
    private var restored = false

    /// Saves `fd`'s settings and blocking flag.
    init(fd: CInt) throws(SyscallError) {
        self.fd = fd
        saved = try Termios.get(fd)
        wasNonBlocking = try FileIO.isNonBlocking(fd)
    }

    func enterRawMode() throws(SyscallError) {
        try Termios.set(fd, Termios.raw(saved))
    }

    /// Puts back the settings found at the start.
    func restore() {
        guard !restored else { return }
        restored = true
        try? FileIO.setNonBlocking(fd, wasNonBlocking)
        try? Termios.set(fd, saved)
    }

    deinit { restore() }
}
