import SystemCalls

/// Encoding of ``SerialSettings`` into `termios2` and back: pure functions, tested without a
/// device. Any thread.
extension SerialSettings {
    private typealias F = Termios.Flag

    /// Writes these settings, in raw mode, into `t` (`HUPCL` as ``hangUpOnClose`` says), leaving
    /// unrelated bits as they were.
    public func apply(to t: inout Termios.Settings) {
        // Raw mode, as cfmakeraw, plus the parity-checking and flow-control bits.
        t.c_iflag &= ~(F.ignbrk | F.brkint | F.parmrk | F.istrip | F.inlcr | F.igncr | F.icrnl | F.iuclc)
        t.c_iflag &= ~(F.ixon | F.ixoff | F.ixany | F.inpck | F.ignpar | F.imaxbel)
        t.c_oflag &= ~F.opost
        t.c_lflag &= ~(F.echo | F.echoe | F.echok | F.echonl | F.icanon | F.isig | F.iexten)

        t.c_cflag &= ~(F.csize | F.parenb | F.parodd | F.cmspar | F.cstopb | F.crtscts)
        t.c_cflag |= F.cread | F.clocal
        if hangUpOnClose { t.c_cflag |= F.hupcl } else { t.c_cflag &= ~F.hupcl }
        switch dataBits {
        case .five: t.c_cflag |= F.cs5
        case .six: t.c_cflag |= F.cs6
        case .seven: t.c_cflag |= F.cs7
        case .eight: t.c_cflag |= F.cs8
        }
        switch parity {
        case .none: break
        case .even: t.c_cflag |= F.parenb
        case .odd: t.c_cflag |= F.parenb | F.parodd
        case .mark: t.c_cflag |= F.parenb | F.cmspar | F.parodd
        case .space: t.c_cflag |= F.parenb | F.cmspar
        }
        if parity != .none { t.c_iflag |= F.inpck }
        if stopBits == .two { t.c_cflag |= F.cstopb }
        switch flowControl {
        case .none: break
        case .rtsCts: t.c_cflag |= F.crtscts
        case .xonXoff: t.c_iflag |= F.ixon | F.ixoff
        }

        // Speed: the Bnnn code when the rate has one, else BOTHER with the rate in the speed
        // fields. CIBAUD cleared means "input speed = output speed".
        t.c_cflag &= ~(F.cbaud | F.cibaud)
        if let code = SerialSettings.standardCode(for: baudRate) {
            t.c_cflag |= code
        } else {
            t.c_cflag |= F.bother
        }
        t.c_ispeed = baudRate
        t.c_ospeed = baudRate

        // Reads return what is there (the descriptor is non-blocking anyway).
        withUnsafeMutableBytes(of: &t.c_cc) { cc in
            cc[Termios.vmin] = 1
            cc[Termios.vtime] = 0
        }
    }

    /// The settings that `t` describes; nil for a rate this encoding cannot name (`B0`, say).
    public init?(decoding t: Termios.Settings) {
        let c = t.c_cflag
        let baud: UInt32
        let code = c & F.cbaud
        if code == F.bother {
            baud = t.c_ospeed
        } else if let rate = Termios.standardBaudRates.first(where: { $0.code == code })?.rate {
            baud = rate
        } else {
            return nil
        }
        let bits: DataBits
        switch c & F.csize {
        case F.cs5: bits = .five
        case F.cs6: bits = .six
        case F.cs7: bits = .seven
        default: bits = .eight
        }
        let parity: Parity
        if c & F.parenb == 0 {
            parity = .none
        } else if c & F.cmspar != 0 {
            parity = c & F.parodd != 0 ? .mark : .space
        } else {
            parity = c & F.parodd != 0 ? .odd : .even
        }
        let flow: FlowControl
        if c & F.crtscts != 0 {
            flow = .rtsCts
        } else if t.c_iflag & (F.ixon | F.ixoff) == (F.ixon | F.ixoff) {
            flow = .xonXoff
        } else {
            flow = .none
        }
        self.init(
            baudRate: baud,
            dataBits: bits,
            parity: parity,
            stopBits: c & F.cstopb != 0 ? .two : .one,
            flowControl: flow,
            hangUpOnClose: c & F.hupcl != 0
        )
    }

    /// Compares these (requested) settings with what the device reports. Returns the first
    /// difference as `(setting, requested, actual)`, or nil when they agree. A custom rate within
    /// ``baudTolerance`` agrees; raw mode is checked too.
    public func difference(from actual: Termios.Settings) -> (setting: String, requested: String, actual: String)? {
        guard let got = SerialSettings(decoding: actual) else {
            return ("baud rate", "\(baudRate)", "an unknown rate code")
        }
        if got.baudRate != baudRate {
            let exact = SerialSettings.standardCode(for: baudRate) != nil
            let off = abs(Double(got.baudRate) - Double(baudRate)) / Double(baudRate)
            if exact || off > SerialSettings.baudTolerance {
                return ("baud rate", "\(baudRate)", "\(got.baudRate)")
            }
        }
        if got.dataBits != dataBits { return ("data bits", "\(dataBits.rawValue)", "\(got.dataBits.rawValue)") }
        if got.parity != parity { return ("parity", parity.rawValue, got.parity.rawValue) }
        if got.stopBits != stopBits { return ("stop bits", "\(stopBits.rawValue)", "\(got.stopBits.rawValue)") }
        if got.flowControl != flowControl {
            return ("flow control", flowControl.rawValue, got.flowControl.rawValue)
        }
        if actual.c_lflag & (F.icanon | F.echo | F.isig) != 0 || actual.c_oflag & F.opost != 0 {
            return ("raw mode", "on", "off (line editing, echo or output processing still enabled)")
        }
        return nil
    }

    /// The `Bnnn` code of a standard rate.
    static func standardCode(for rate: UInt32) -> UInt32? {
        Termios.standardBaudRates.first(where: { $0.rate == rate })?.code
    }
}
