import CAccessoryShims

/// What a serial driver tells of its line beyond termios and the modem lines: whether the
/// transmitter is empty, and its receive-error counters. Linux's UART drivers (serial_core) and
/// most USB-serial drivers answer both; a pty answers neither (`ENOTTY`). Any thread.
extension Termios {
    /// The driver's interrupt counters since the port was opened (`TIOCGICOUNT`'s
    /// `serial_icounter_struct`, the fields this project reads). A value. Any thread.
    public struct InterruptCounts: Sendable, Equatable {
        public var received: Int
        public var framingErrors: Int
        public var parityErrors: Int
        /// The UART's overruns and the driver's buffer overruns together.
        public var overruns: Int
        public var breaks: Int

        public init(
            received: Int = 0,
            framingErrors: Int = 0,
            parityErrors: Int = 0,
            overruns: Int = 0,
            breaks: Int = 0
        ) {
            self.received = received
            self.framingErrors = framingErrors
            self.parityErrors = parityErrors
            self.overruns = overruns
            self.breaks = breaks
        }
    }

    /// Whether the transmitter (holding and shift register) is empty. `TIOCSERGETLSR`.
    public static func transmitterEmpty(_ fd: CInt) throws(SyscallError) -> Bool {
        var v: CInt = 0
        // The body returns the register bits themselves (never -1), so that an injected `.answer`
        // stands for them.
        let bits = try syscallValue(.tiocsergetlsr, fd: fd) { () -> CInt in
            cas_ioctl_int(fd, CAS_TIOCSERGETLSR, &v) == -1 ? -1 : v
        }
        return bits & CAS_TIOCSER_TEMT != 0
    }

    /// The driver's interrupt counters. `TIOCGICOUNT`.
    public static func interruptCounts(_ fd: CInt) throws(SyscallError) -> InterruptCounts {
        var c = cas_icount()
        _ = try syscallValue(.tiocgicount, fd: fd) { cas_tiocgicount(fd, &c) }
        return InterruptCounts(
            received: Int(c.rx),
            framingErrors: Int(c.frame),
            parityErrors: Int(c.parity),
            overruns: Int(c.overrun) + Int(c.buf_overrun),
            breaks: Int(c.brk)
        )
    }
}
