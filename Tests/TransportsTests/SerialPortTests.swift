import AccessoryTestSupport
import IOLoop
import SystemCalls
import Testing
import Transports

/// SerialPort on pty slaves: termios round trips, exclusivity, errors, line control.
@Suite struct SerialPortTests {
    // MARK: - Settings

    /// What a pty keeps: any speed (BOTHER included), stop bits and flow control. (A pty forces
    /// CS8 and no parity; those are checked by the pure encoding tests and the mismatch test.)
    static let ptySettings: [SerialSettings] = [
        SerialSettings(baudRate: 250_000),
        SerialSettings(baudRate: 9600),
        SerialSettings(baudRate: 50),
        SerialSettings(baudRate: 4_000_000),
        SerialSettings(baudRate: 31_250, stopBits: .two),
        SerialSettings(baudRate: 74_880, flowControl: .rtsCts),
        SerialSettings(baudRate: 115_200, stopBits: .two, flowControl: .xonXoff),
        SerialSettings(baudRate: 1_234_567, flowControl: .rtsCts),
    ]

    @Test(arguments: ptySettings)
    func settingsRoundTripOnAPtySlave(_ settings: SerialSettings) throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let pty = try TestPty()
        let port = try SerialPort.open(path: pty.slavePath, settings: settings, on: loop, exclusive: false)
        defer { port.close() }
        #expect(try port.currentSettings() == settings)
        #expect(port.settings == settings)

        // An independent descriptor sees the same termios2, with BOTHER exactly for odd rates.
        let other = try FileIO.open(pty.slavePath, flags: FileIO.OpenFlag.readWrite | FileIO.OpenFlag.nonBlocking)
        let t = try Termios.get(other.rawValue)
        other.close()
        let standard = Termios.standardBaudRates.contains { $0.rate == settings.baudRate }
        #expect((t.c_cflag & Termios.Flag.cbaud == Termios.Flag.bother) == !standard)
        if !standard { #expect(t.c_ispeed == settings.baudRate && t.c_ospeed == settings.baudRate) }
        #expect(t.c_lflag & (Termios.Flag.icanon | Termios.Flag.echo | Termios.Flag.isig) == 0, "raw mode")
        #expect(t.c_oflag & Termios.Flag.opost == 0)
        #expect(SerialSettings(decoding: t) == settings)
    }

    @Test func reconfiguringAnOpenPortRoundTrips() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let pty = try TestPty()
        let port = try SerialPort.open(path: pty.slavePath, settings: SerialSettings(baudRate: 9600), on: loop)
        defer { port.close() }
        for s in SerialPortTests.ptySettings {
            try port.configure(s)
            #expect(try port.currentSettings() == s)
        }
    }

    @Test func aPtyRefusingParityIsReportedAsAMismatch() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let pty = try TestPty()
        // Linux ptys force CS8 and clear PARENB: the read-back must notice.
        let requested = SerialSettings(baudRate: 9600, dataBits: .seven, parity: .even)
        #expect(
            throws: TransportError.settingsMismatch(
                path: pty.slavePath,
                setting: "data bits",
                requested: "7",
                actual: "8"
            )
        ) {
            _ = try SerialPort.open(path: pty.slavePath, settings: requested, on: loop)
        }
        let error = TransportError.settingsMismatch(
            path: "/dev/ttyS0",
            setting: "parity",
            requested: "even",
            actual: "none"
        )
        #expect(error.description == "/dev/ttyS0 did not accept parity even: the device reports none")
        // The failed open released the device: a plain open works.
        let port = try SerialPort.open(path: pty.slavePath, settings: SerialSettings(), on: loop)
        port.close()
    }

    @Test func invalidSettingsAreRefusedBeforeOpening() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        #expect(throws: TransportError.invalidSettings("the baud rate must be positive")) {
            _ = try SerialPort.open(path: "/dev/null", settings: SerialSettings(baudRate: 0), on: loop)
        }
    }

    // MARK: - Open errors

    @Test func openErrorsArePersonReadable() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        #expect(throws: TransportError.notFound(path: "/dev/ttyDOESNOTEXIST")) {
            _ = try SerialPort.open(path: "/dev/ttyDOESNOTEXIST", settings: SerialSettings(), on: loop)
        }
        #expect(TransportError.notFound(path: "/dev/ttyUSB9").description == "/dev/ttyUSB9 does not exist")
        #expect(throws: TransportError.notATerminal(path: "/dev/null")) {
            _ = try SerialPort.open(path: "/dev/null", settings: SerialSettings(), on: loop)
        }
    }

    @Test func exclusiveOpenRefusesASecondOpenerInThisProcess() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let pty = try TestPty()
        let first = try SerialPort.open(path: pty.slavePath, settings: SerialSettings(), on: loop)
        #expect(first.isExclusive)
        // Root bypasses TIOCEXCL, but not the flock.
        #expect(throws: TransportError.inUse(path: pty.slavePath)) {
            _ = try SerialPort.open(path: pty.slavePath, settings: SerialSettings(), on: loop)
        }
        #expect(TransportError.inUse(path: "/dev/ttyUSB0").description == "/dev/ttyUSB0 is in use by another process")
        first.close()
        let again = try SerialPort.open(path: pty.slavePath, settings: SerialSettings(), on: loop)
        again.close()
    }

    /// The exclusive-open error as another (non-root) user sees it: `TIOCEXCL` gives `EBUSY`.
    @Test(
        .enabled(
            if: ExternalProgram.missingAsAnotherUser("python3") == nil,
            "\(ExternalProgram.missingAsAnotherUser("python3") ?? "")"
        )
    )
    func exclusiveOpenRefusesAnotherUser() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let pty = try TestPty()
        pty.makeSlaveWorldWritable()
        let python = ExternalProgram.locate("python3", forOtherUsers: true)
        let script = """
            import os, sys
            try:
                os.close(os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK))
                print("opened")
            except OSError as e:
                print("errno", e.errno)
            """
        let asNobody = [
            ExternalProgram.locate("setpriv"), "--reuid=65534", "--regid=65534", "--clear-groups", python, "-c", script,
        ]
        let before = runProgram(asNobody + [pty.slavePath])
        try #require(
            before?.output.contains("opened") == true,
            "helper could not open the pty: \(String(describing: before))"
        )

        let port = try SerialPort.open(path: pty.slavePath, settings: SerialSettings(), on: loop)
        let during = runProgram(asNobody + [pty.slavePath])
        #expect(during?.output.contains("errno 16") == true, "expected EBUSY, got \(String(describing: during))")

        port.close()  // lifts TIOCEXCL
        let after = runProgram(asNobody + [pty.slavePath])
        #expect(after?.output.contains("opened") == true, "after close: \(String(describing: after))")
    }

    @Test func nonExclusiveOpenAllowsASecondOpener() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let pty = try TestPty()
        let a = try SerialPort.open(path: pty.slavePath, settings: SerialSettings(), on: loop, exclusive: false)
        let b = try SerialPort.open(path: pty.slavePath, settings: SerialSettings(), on: loop, exclusive: false)
        #expect(!a.isExclusive && !b.isExclusive)
        a.close()
        b.close()
    }

    // MARK: - Line control

    @Test func modemLinesOnAPtyAreUnsupportedNotFailures() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let pty = try TestPty()
        let port = try SerialPort.open(path: pty.slavePath, settings: SerialSettings(), on: loop)
        defer { port.close() }
        #expect(try port.setModemLines([.dtr, .rts], asserted: true) == .unsupported)
        #expect(try port.setModemLines(.dtr, asserted: false) == .unsupported)
        #expect(try port.modemLines() == .unsupported)
    }

    @Test func flushAndDrainWorkOnAPty() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let pty = try TestPty()
        let port = try SerialPort.open(path: pty.slavePath, settings: SerialSettings(), on: loop)
        defer { port.close() }
        #expect(try port.flush(.both) == .done)

        try port.channel.write(Array("drain me".utf8))
        var drained: Result<ControlOutcome, TransportError>?
        port.drain(timeout: .seconds(2)) { drained = $0 }
        // The master reads, so the output queue empties.
        #expect(
            spin(loop) {
                _ = drainAvailable(pty.masterFD)
                return drained != nil
            }
        )
        #expect(drained == .success(.done))
    }

    @Test func flushOutputDropsTheChannelQueueToo() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let pty = try TestPty()
        let port = try SerialPort.open(path: pty.slavePath, settings: SerialSettings(), on: loop)
        defer { port.close() }
        try port.channel.write([UInt8](repeating: 1, count: 256 * 1024))
        #expect(port.channel.queuedOutboundBytes > 0)
        #expect(try port.flush(.output) == .done)
        #expect(port.channel.queuedOutboundBytes == 0)
    }

    @Test func injectedENOTTYIsUnsupportedAndEIOIsAFailure() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let pty = try TestPty()
        let port = try SerialPort.open(path: pty.slavePath, settings: SerialSettings(), on: loop)
        defer { port.close() }
        let fd = try #require(port.channel.fileDescriptor)
        var outcome: Result<ControlOutcome, TransportError>?
        let notTTY = FaultInjection.install { name, target in
            target == fd && (name == .ioctl || name == .tiocsbrk) ? .error(.inappropriateIOCTLForDevice) : nil
        }
        port.sendBreak(for: .milliseconds(1)) { outcome = $0 }
        let flushed = Result { () throws(TransportError) in try port.flush(.input) }
        FaultInjection.remove(notTTY)
        #expect(flushed == .success(.unsupported))
        #expect(spin(loop) { outcome != nil })
        #expect(outcome == .success(.unsupported))

        let ioError = FaultInjection.install { name, target in
            target == fd && name == .ioctl ? .error(.ioError) : nil
        }
        let flush = Result { () throws(TransportError) in try port.flush(.input) }
        let configure = Result { () throws(TransportError) in try port.configure(SerialSettings(baudRate: 9600)) }
        FaultInjection.remove(ioError)
        #expect(flush == .failure(.system(context: "cannot flush on \(pty.slavePath)", SyscallError(.ioctl, .ioError))))
        if case .success = configure { Issue.record("configure should fail with EIO") }
        #expect(port.channel.isOpen)
    }

    @Test func controlAfterCloseSaysClosed() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let pty = try TestPty()
        let port = try SerialPort.open(path: pty.slavePath, settings: SerialSettings(), on: loop)
        port.close()
        port.close()
        #expect(throws: TransportError.closed) { try port.setModemLines(.dtr, asserted: true) }
        #expect(throws: TransportError.closed) { try port.flush(.both) }
        #expect(throws: TransportError.closed) { try port.configure(SerialSettings()) }
    }
}
