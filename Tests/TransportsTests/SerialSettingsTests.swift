import SystemCalls
import Testing
import Transports

/// The termios encoding of SerialSettings, as pure functions (every combination, no device).
@Suite struct SerialSettingsTests {
    private typealias F = Termios.Flag

    static var everyFormat: [SerialSettings] {
        var all: [SerialSettings] = []
        for bits in SerialSettings.DataBits.allCases {
            for parity in SerialSettings.Parity.allCases {
                for stop in SerialSettings.StopBits.allCases {
                    for flow in SerialSettings.FlowControl.allCases {
                        for baud: UInt32 in [300, 9600, 115_200, 250_000, 3_000_000, 12_345] {
                            all.append(
                                SerialSettings(
                                    baudRate: baud,
                                    dataBits: bits,
                                    parity: parity,
                                    stopBits: stop,
                                    flowControl: flow
                                )
                            )
                        }
                    }
                }
            }
        }
        return all
    }

    /// A cooked terminal, as a fresh tty is: echo, canonical mode, CR/LF mapping, output processing.
    static var cooked: Termios.Settings {
        var t = Termios.Settings()
        t.c_iflag = F.icrnl | F.ixon | F.brkint | F.imaxbel
        t.c_oflag = F.opost
        t.c_lflag = F.icanon | F.echo | F.isig | F.iexten | F.echoe | F.echok
        t.c_cflag = F.cs8 | F.cread | F.hupcl | Termios.standardBaudRates[14].code
        return t
    }

    @Test func everyCombinationEncodesAndDecodesToItself() {
        for s in SerialSettingsTests.everyFormat {
            var t = SerialSettingsTests.cooked
            s.apply(to: &t)
            #expect(SerialSettings(decoding: t) == s, "\(s)")
            #expect(s.difference(from: t) == nil, "\(s)")
            #expect(t.c_lflag & (F.icanon | F.echo | F.isig | F.iexten) == 0)
            #expect(t.c_oflag & F.opost == 0)
            #expect(t.c_iflag & (F.icrnl | F.brkint) == 0)
            #expect(t.c_cflag & F.hupcl != 0, "HUPCL by default")
            #expect(t.c_cflag & (F.cread | F.clocal) == F.cread | F.clocal)
            #expect((t.c_iflag & F.inpck != 0) == (s.parity != .none))
        }
    }

    @Test func hangUpOnCloseIsTheHUPCLBit() {
        var t = SerialSettingsTests.cooked
        SerialSettings(hangUpOnClose: false).apply(to: &t)
        #expect(t.c_cflag & F.hupcl == 0)
        #expect(SerialSettings(decoding: t)?.hangUpOnClose == false)
        SerialSettings(hangUpOnClose: true).apply(to: &t)
        #expect(t.c_cflag & F.hupcl != 0)
        #expect(SerialSettings(decoding: t)?.hangUpOnClose == true)
    }

    @Test func standardRatesUseTheirCodeAndOthersUseBOTHER() {
        var t = SerialSettingsTests.cooked
        SerialSettings(baudRate: 115_200).apply(to: &t)
        #expect(t.c_cflag & F.cbaud == Termios.standardBaudRates.first { $0.rate == 115_200 }!.code)
        #expect(t.c_cflag & F.cibaud == 0, "input speed follows output speed")
        SerialSettings(baudRate: 250_000).apply(to: &t)
        #expect(t.c_cflag & F.cbaud == F.bother)
        #expect(t.c_ispeed == 250_000 && t.c_ospeed == 250_000)
    }

    @Test func parityBitsAreTheLinuxOnes() {
        func cflag(_ p: SerialSettings.Parity) -> UInt32 {
            var t = Termios.Settings()
            SerialSettings(parity: p).apply(to: &t)
            return t.c_cflag & (F.parenb | F.parodd | F.cmspar)
        }
        #expect(cflag(.none) == 0)
        #expect(cflag(.even) == F.parenb)
        #expect(cflag(.odd) == F.parenb | F.parodd)
        #expect(cflag(.mark) == F.parenb | F.parodd | F.cmspar)
        #expect(cflag(.space) == F.parenb | F.cmspar)
    }

    @Test func readBackDifferencesAreFound() {
        let s = SerialSettings(baudRate: 250_000, dataBits: .seven, parity: .even, stopBits: .two)
        var t = SerialSettingsTests.cooked
        s.apply(to: &t)

        var rounded = t
        rounded.c_ospeed = 248_000  // within 2%: a UART divider's rounding
        #expect(s.difference(from: rounded) == nil)

        var slow = t
        slow.c_ospeed = 230_000
        #expect(s.difference(from: slow)?.setting == "baud rate")
        #expect(s.difference(from: slow)?.actual == "230000")

        var eight = t
        eight.c_cflag = (eight.c_cflag & ~F.csize) | F.cs8
        #expect(s.difference(from: eight)?.setting == "data bits")

        var noParity = t
        noParity.c_cflag &= ~F.parenb
        #expect(s.difference(from: noParity)?.setting == "parity")

        var oneStop = t
        oneStop.c_cflag &= ~F.cstopb
        #expect(s.difference(from: oneStop)?.setting == "stop bits")

        var cooked = t
        cooked.c_lflag |= F.icanon
        #expect(s.difference(from: cooked)?.setting == "raw mode")

        // A standard rate must come back exactly.
        let std = SerialSettings(baudRate: 9600)
        var other = t
        std.apply(to: &other)
        other.c_cflag = (other.c_cflag & ~F.cbaud) | Termios.standardBaudRates.first { $0.rate == 19200 }!.code
        #expect(std.difference(from: other)?.setting == "baud rate")
    }

    @Test func descriptionIsTheUsualShorthand() {
        #expect(SerialSettings().description == "115200 8N1, flow none")
        #expect(
            SerialSettings(baudRate: 9600, dataBits: .seven, parity: .even, stopBits: .two, flowControl: .rtsCts)
                .description == "9600 7E2, flow rtscts"
        )
    }
}
