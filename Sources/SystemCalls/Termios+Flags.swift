import CAccessoryShims
import Glibc

extension Termios {
    /// The `termios` flag bits that serial configuration needs, as `UInt32` (the type of the
    /// `c_*flag` fields of ``Termios/Settings``). Any thread (constants).
    public enum Flag {
        // c_cflag
        public static let csize = UInt32(CSIZE)
        public static let cs5 = UInt32(CS5)
        public static let cs6 = UInt32(CS6)
        public static let cs7 = UInt32(CS7)
        public static let cs8 = UInt32(CS8)
        public static let cstopb = UInt32(CSTOPB)
        public static let cread = UInt32(CREAD)
        public static let parenb = UInt32(PARENB)
        public static let parodd = UInt32(PARODD)
        public static let hupcl = UInt32(HUPCL)
        public static let clocal = UInt32(CLOCAL)
        public static let cmspar = CAS_CMSPAR
        public static let crtscts = CAS_CRTSCTS
        public static let cbaud = CAS_CBAUD
        public static let cibaud = CAS_CIBAUD
        public static let bother = CAS_BOTHER
        // c_iflag
        public static let ignbrk = UInt32(IGNBRK)
        public static let brkint = UInt32(BRKINT)
        public static let ignpar = UInt32(IGNPAR)
        public static let parmrk = UInt32(PARMRK)
        public static let inpck = UInt32(INPCK)
        public static let istrip = UInt32(ISTRIP)
        public static let inlcr = UInt32(INLCR)
        public static let igncr = UInt32(IGNCR)
        public static let icrnl = UInt32(ICRNL)
        public static let iuclc = UInt32(IUCLC)
        public static let ixon = UInt32(IXON)
        public static let ixany = UInt32(IXANY)
        public static let ixoff = UInt32(IXOFF)
        public static let imaxbel = UInt32(IMAXBEL)
        // c_oflag
        public static let opost = UInt32(OPOST)
        // c_lflag
        public static let isig = UInt32(ISIG)
        public static let icanon = UInt32(ICANON)
        public static let echo = UInt32(ECHO)
        public static let echoe = UInt32(ECHOE)
        public static let echok = UInt32(ECHOK)
        public static let echonl = UInt32(ECHONL)
        public static let iexten = UInt32(IEXTEN)
    }

    /// The rates that have their own `Bnnn` code in `CBAUD`, with that code. Other rates are set
    /// with `BOTHER` and the speed fields. Any thread (a constant).
    public static let standardBaudRates: [(rate: UInt32, code: UInt32)] = [
        (50, UInt32(B50)), (75, UInt32(B75)), (110, UInt32(B110)), (134, UInt32(B134)),
        (150, UInt32(B150)), (200, UInt32(B200)), (300, UInt32(B300)), (600, UInt32(B600)),
        (1200, UInt32(B1200)), (1800, UInt32(B1800)), (2400, UInt32(B2400)), (4800, UInt32(B4800)),
        (9600, UInt32(B9600)), (19200, UInt32(B19200)), (38400, UInt32(B38400)),
        (57600, UInt32(B57600)), (115_200, UInt32(B115200)), (230_400, UInt32(B230400)),
        (460_800, UInt32(B460800)), (500_000, UInt32(B500000)), (576_000, UInt32(B576000)),
        (921_600, UInt32(B921600)), (1_000_000, UInt32(B1000000)), (1_152_000, UInt32(B1152000)),
        (1_500_000, UInt32(B1500000)), (2_000_000, UInt32(B2000000)), (2_500_000, UInt32(B2500000)),
        (3_000_000, UInt32(B3000000)), (3_500_000, UInt32(B3500000)), (4_000_000, UInt32(B4000000)),
    ]
}
