import IOLoop
import SystemCalls

/// A serial device (a tty: USB adapter, on-board UART, `/dev/rfcommN`, or a pty in tests),
/// configured through `termios2` and read and written through its ``channel``.
///
/// Opening: `O_RDWR|O_NOCTTY|O_NONBLOCK|O_CLOEXEC`; when exclusive (the default) an `flock` and
/// then `TIOCEXCL`, so that neither a cooperating tool nor an unprivileged process can open the
/// device behind the daemon's back; then the settings are applied and read back.
///
/// Modem lines, break, flush and drain are in `SerialPort+Control.swift`.
///
/// Loop thread only.
public final class SerialPort: @unchecked Sendable {  // @unchecked: all mutable state is loop-confined.
    /// The device path it was opened with.
    public let path: String
    /// The byte stream: set `onBytes`/`onGone` on it, write to it.
    public let channel: StreamChannel
    /// The settings in force (as requested and verified).
    public private(set) var settings: SerialSettings
    /// Whether the port holds the device exclusively.
    public let isExclusive: Bool
    /// Where the timed controls (pulse, break, drain) set their timers: the channel's loop, or a
    /// virtual-time loop in tests.
    public let scheduler: any LoopScheduler
    /// Takes the modem-line calls the device itself cannot (a pty's): ``ModemLineStandIn``.
    public var modemLineStandIn: (any ModemLineStandIn)?

    private init(
        path: String,
        channel: StreamChannel,
        settings: SerialSettings,
        exclusive: Bool,
        scheduler: any LoopScheduler
    ) {
        self.path = path
        self.channel = channel
        self.settings = settings
        self.isExclusive = exclusive
        self.scheduler = scheduler
    }

    /// Opens and configures the device at `path` on `loop`. The timed controls' timers go through
    /// `scheduler` (`loop` when nil), which must run on `loop`'s thread.
    ///
    /// - Throws: ``TransportError/notFound(path:)``, ``TransportError/permissionDenied(path:)``,
    ///   ``TransportError/inUse(path:)`` ("in use by another process"),
    ///   ``TransportError/notATerminal(path:)``, ``TransportError/settingsMismatch(path:setting:requested:actual:)``
    ///   when the device does not keep what was set, or ``TransportError/system(context:_:)``.
    ///
    /// Loop thread only.
    public static func open(
        path: String,
        settings: SerialSettings,
        on loop: IOLoop,
        exclusive: Bool = true,
        maxOutboundBytes: Int = 1 << 20,
        scheduler: (any LoopScheduler)? = nil
    ) throws(TransportError) -> SerialPort {
        loop.preconditionInLoop()
        try settings.validate()
        let flags = FileIO.OpenFlag.readWrite | FileIO.OpenFlag.noControllingTerminal | FileIO.OpenFlag.nonBlocking
        let fd: OwnedFD
        do {
            fd = try FileIO.open(path, flags: flags)
        } catch {
            throw openError(error, path: path)
        }
        return try take(
            fd,
            path: path,
            settings: settings,
            on: loop,
            exclusive: exclusive,
            maxOutboundBytes: maxOutboundBytes,
            scheduler: scheduler
        )
    }

    /// Takes over `fd`, a descriptor of the device at `path` opened before this process started
    /// (kept for it in systemd's file descriptor store across a restart), without closing or
    /// reopening it, so the line is not hung up: checks that it is still the node at `path` (the
    /// same device number and inode: a replugged adapter is a new node), then locks and
    /// configures it as ``open(path:settings:on:exclusive:maxOutboundBytes:scheduler:)`` does.
    ///
    /// - Throws: ``TransportError/notFound(path:)`` when `path` is gone,
    ///   ``TransportError/replaced(path:)`` when it names another device now, or what `open`
    ///   throws after opening. `fd` is closed on any error.
    ///
    /// Loop thread only.
    public static func adopt(
        _ fd: consuming OwnedFD,
        path: String,
        settings: SerialSettings,
        on loop: IOLoop,
        exclusive: Bool = true,
        maxOutboundBytes: Int = 1 << 20
    ) throws(TransportError) -> SerialPort {
        loop.preconditionInLoop()
        try settings.validate()
        let held: FileStatus
        let named: FileStatus?
        do {
            held = try FileIO.status(ofDescriptor: fd.rawValue)
            named = try FileIO.status(followingLinks: path)
        } catch {
            throw .system(context: "cannot check the kept descriptor of \(path)", error)
        }
        guard let named else { throw .notFound(path: path) }
        guard held.kind == .characterDevice, held.deviceNumber == named.deviceNumber, held.inode == named.inode,
            held.device == named.device
        else { throw .replaced(path: path) }
        do { try FileIO.setNonBlocking(fd.rawValue, true) } catch {
            throw .system(context: "cannot make the kept descriptor of \(path) non-blocking", error)
        }
        return try take(
            fd,
            path: path,
            settings: settings,
            on: loop,
            exclusive: exclusive,
            maxOutboundBytes: maxOutboundBytes,
            scheduler: nil
        )
    }

    /// The steps after the open, shared with ``adopt(_:path:settings:on:exclusive:maxOutboundBytes:)``.
    private static func take(
        _ fd: consuming OwnedFD,
        path: String,
        settings: SerialSettings,
        on loop: IOLoop,
        exclusive: Bool,
        maxOutboundBytes: Int,
        scheduler: (any LoopScheduler)?
    ) throws(TransportError) -> SerialPort {
        // From here a throw drops `fd`, which closes it (and with it the flock).
        do {
            _ = try Termios.get(fd.rawValue)
        } catch {
            throw error.errno == .inappropriateIOCTLForDevice
                ? .notATerminal(path: path) : .system(context: "cannot read the settings of \(path)", error)
        }
        if exclusive {
            // flock first: if another process holds the device we leave its tty untouched
            // (TIOCEXCL is a flag of the tty, not of our descriptor).
            let locked: Bool
            do { locked = try FileIO.lockExclusive(fd.rawValue) } catch {
                throw .system(context: "cannot lock \(path)", error)
            }
            guard locked else { throw .inUse(path: path) }
            do { try Termios.setExclusive(fd.rawValue) } catch {
                throw .system(context: "cannot make \(path) exclusive", error)
            }
        }
        try configure(fd.rawValue, settings, path: path)
        let channel = try StreamChannel(owning: fd, kind: .file, on: loop, maxOutboundBytes: maxOutboundBytes)
        return SerialPort(
            path: path,
            channel: channel,
            settings: settings,
            exclusive: exclusive,
            scheduler: scheduler ?? loop
        )
    }

    /// Applies new settings to the open port and verifies them. Loop thread only.
    public func configure(_ newSettings: SerialSettings) throws(TransportError) {
        channel.loop.preconditionInLoop()
        try newSettings.validate()
        guard let fd = channel.fileDescriptor else { throw .closed }
        try SerialPort.configure(fd, newSettings, path: path)
        settings = newSettings
    }

    /// The settings the device reports now (nil for a rate code this module cannot name).
    /// Loop thread only.
    public func currentSettings() throws(TransportError) -> SerialSettings? {
        channel.loop.preconditionInLoop()
        guard let fd = channel.fileDescriptor else { throw .closed }
        do {
            return SerialSettings(decoding: try Termios.get(fd))
        } catch {
            throw .system(context: "cannot read the settings of \(path)", error)
        }
    }

    /// Discards unsent output (so that `close` cannot block on a stalled line), lifts `TIOCEXCL`,
    /// and closes the channel. Idempotent. Loop thread only.
    public func close() {
        channel.loop.preconditionInLoop()
        if let fd = channel.fileDescriptor {
            // Best effort: on a device that is going away these fail, and that is fine.
            try? Termios.flush(fd, .output)
            if isExclusive { try? Termios.clearExclusive(fd) }
        }
        channel.close()
    }

    // MARK: - Helpers

    private static func configure(_ fd: CInt, _ settings: SerialSettings, path: String) throws(TransportError) {
        do {
            var t = try Termios.get(fd)
            settings.apply(to: &t)
            try Termios.set(fd, t)
            let readBack = try Termios.get(fd)
            if let d = settings.difference(from: readBack) {
                throw TransportError.settingsMismatch(
                    path: path,
                    setting: d.setting,
                    requested: d.requested,
                    actual: d.actual
                )
            }
        } catch let error as TransportError {
            throw error
        } catch let error as SyscallError {
            throw .system(context: "cannot configure \(path) as \(settings)", error)
        } catch {
            preconditionFailure("unexpected error \(error)")
        }
    }

    static func openError(_ error: SyscallError, path: String) -> TransportError {
        switch error.errno {
        case .noSuchFileOrDirectory, .noSuchAddressOrDevice, .operationNotSupportedByDevice, .notDirectory:
            return .notFound(path: path)
        case .permissionDenied:
            return .permissionDenied(path: path)
        case .notPermitted:
            // A device node the file mode lets us open fails with EPERM only when a device cgroup
            // (systemd's DevicePolicy=) refuses it.
            return .refusedByDevicePolicy(path: path, deviceAllow: DeviceAllowHint.line(forDeviceAt: path))
        case .resourceBusy:
            return .inUse(path: path)
        default:
            return .system(context: "cannot open \(path)", error)
        }
    }
}
