import CAccessoryShims
import Glibc

/// Serial line settings through `termios2` (which carries any baud rate with `BOTHER`), modem
/// lines, break, flush and exclusivity. Any thread.
public enum Termios {
    /// The kernel's `struct termios2`, as a value.
    public typealias Settings = cas_termios

    public static let cbaud = CAS_CBAUD
    public static let bother = CAS_BOTHER
    public static let cmspar = CAS_CMSPAR
    public static let crtscts = CAS_CRTSCTS
    public static let vmin = Int(CAS_VMIN)
    public static let vtime = Int(CAS_VTIME)

    /// The corresponding ioctl is `TCGETS2`.
    public static func get(_ fd: CInt) throws(SyscallError) -> Settings {
        var t = Settings()
        _ = try syscallValue(.ioctl, fd: fd) { cas_tcgets2(fd, &t) }
        return t
    }

    /// Applies settings now. The corresponding ioctl is `TCSETS2`.
    public static func set(_ fd: CInt, _ settings: Settings) throws(SyscallError) {
        var t = settings
        _ = try syscallValue(.ioctl, fd: fd) { cas_tcsets2(fd, &t) }
    }

    /// Modem-line bits (`TIOCM_*`).
    public struct ModemLines: OptionSet, Sendable, Hashable {
        public let rawValue: CInt
        public init(rawValue: CInt) { self.rawValue = rawValue }
        public static let dtr = ModemLines(rawValue: CAS_TIOCM_DTR)
        public static let rts = ModemLines(rawValue: CAS_TIOCM_RTS)
        public static let cts = ModemLines(rawValue: CAS_TIOCM_CTS)
        public static let dsr = ModemLines(rawValue: CAS_TIOCM_DSR)
        public static let cd = ModemLines(rawValue: CAS_TIOCM_CD)
        public static let ri = ModemLines(rawValue: CAS_TIOCM_RI)
    }

    /// Reads the modem lines. Throws `ENOTTY` where the device has none (ptys). `TIOCMGET`.
    public static func modemLines(_ fd: CInt) throws(SyscallError) -> ModemLines {
        var v: CInt = 0
        // The body returns the lines themselves (never -1: TIOCM bits are positive), so that an
        // injected `.answer` stands for them.
        let lines = try syscallValue(.tiocmget, fd: fd) { () -> CInt in
            cas_ioctl_int(fd, CAS_TIOCMGET, &v) == -1 ? -1 : v
        }
        return ModemLines(rawValue: lines)
    }

    /// Raises (`on`) or lowers lines. `TIOCMBIS`/`TIOCMBIC`.
    public static func setModemLines(_ fd: CInt, _ lines: ModemLines, on: Bool) throws(SyscallError) {
        var v = lines.rawValue
        _ = try syscallValue(on ? .tiocmbis : .tiocmbic, fd: fd) {
            cas_ioctl_int(fd, on ? CAS_TIOCMBIS : CAS_TIOCMBIC, &v)
        }
    }

    /// Starts (`on`) or stops a break condition. `TIOCSBRK`/`TIOCCBRK`.
    public static func setBreak(_ fd: CInt, on: Bool) throws(SyscallError) {
        _ = try syscallValue(on ? .tiocsbrk : .tioccbrk, fd: fd) {
            cas_ioctl_none(fd, on ? CAS_TIOCSBRK : CAS_TIOCCBRK)
        }
    }

    public enum FlushQueue: UInt {
        case input = 0  // TCIFLUSH
        case output = 1  // TCOFLUSH
        case both = 2  // TCIOFLUSH
    }

    /// Discards queued data. `TCFLSH`.
    public static func flush(_ fd: CInt, _ queue: FlushQueue) throws(SyscallError) {
        _ = try syscallValue(.ioctl, fd: fd) { cas_ioctl_arg(fd, CAS_TCFLSH, queue.rawValue) }
    }

    /// Waits until output is transmitted. Blocks: only for settings changes at open time.
    /// `TCSBRK` with a non-zero argument is tcdrain.
    public static func drain(_ fd: CInt) throws(SyscallError) {
        _ = try syscallValue(.ioctl, fd: fd) { cas_ioctl_arg(fd, CAS_TCSBRK, 1) }
    }

    /// Bytes waiting to be read (`FIONREAD`).
    public static func inputQueued(_ fd: CInt) throws(SyscallError) -> Int {
        var v: CInt = 0
        _ = try syscallValue(.ioctl, fd: fd) { cas_ioctl_int(fd, CAS_FIONREAD, &v) }
        return Int(v)
    }

    /// Bytes waiting to be transmitted (`TIOCOUTQ`).
    public static func outputQueued(_ fd: CInt) throws(SyscallError) -> Int {
        var v: CInt = 0
        _ = try syscallValue(.ioctl, fd: fd) { cas_ioctl_int(fd, CAS_TIOCOUTQ, &v) }
        return Int(v)
    }

    /// Makes further opens fail with `EBUSY` (except for `CAP_SYS_ADMIN`). `TIOCEXCL`.
    public static func setExclusive(_ fd: CInt) throws(SyscallError) {
        _ = try syscallValue(.ioctl, fd: fd) { cas_ioctl_none(fd, CAS_TIOCEXCL) }
    }

    /// Whether `TIOCEXCL` is in force (`TIOCGEXCL`).
    public static func isExclusive(_ fd: CInt) throws(SyscallError) -> Bool {
        var v: CInt = 0
        _ = try syscallValue(.ioctl, fd: fd) { cas_ioctl_int(fd, CAS_TIOCGEXCL, &v) }
        return v != 0
    }

    /// Whether `fd` is a terminal at all.
    public static func isTerminal(_ fd: CInt) -> Bool { Glibc.isatty(fd) == 1 }
}

/// Pseudo-terminals: the stand-in for serial hardware in the simulator and the tests. Any thread.
public enum PseudoTerminal {
    /// Opens a new master (non-blocking, close-on-exec, not a controlling tty) and returns it
    /// with the slave's path (`/dev/pts/N`). The corresponding C function is `posix_openpt`.
    public static func open() throws(SyscallError) -> PseudoTerminalPair {
        var name = [CChar](repeating: 0, count: 128)
        let fd = try syscallValue(.posix_openpt) {
            name.withUnsafeMutableBufferPointer {
                cas_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK, $0.baseAddress, 128)
            }
        }
        let path = name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return PseudoTerminalPair(master: OwnedFD(adopting: fd), slavePath: path)
    }

    /// Puts a terminal in raw mode (no echo, no line editing, no CR/LF translation), 8N1.
    public static func makeRaw(_ fd: CInt) throws(SyscallError) {
        var t = try Termios.get(fd)
        t.c_iflag &= ~UInt32(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON)
        t.c_oflag &= ~UInt32(OPOST)
        t.c_lflag &= ~UInt32(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
        t.c_cflag &= ~UInt32(CSIZE | PARENB)
        t.c_cflag |= UInt32(CS8)
        try Termios.set(fd, t)
    }
}

/// A pty master and the path of its slave. Any thread, one owner at a time.
@frozen
public struct PseudoTerminalPair: ~Copyable, Sendable {
    public var master: OwnedFD
    public let slavePath: String
}
