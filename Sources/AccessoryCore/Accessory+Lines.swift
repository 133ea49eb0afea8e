import ControlProtocol
import IOLoop
import SystemCalls
import Transports

/// The accessory's modem lines: reading them for `device.status` and `control`, and polling them
/// (``LinePoll``, every ``linePollInterval``) for `device.lines` while some client subscribes.
/// Device loop only.
extension Accessory {
    /// How often the lines are read while someone subscribes to `device.lines`.
    static let linePollInterval: Duration = .milliseconds(50)

    /// Why this accessory has no modem lines to show or set (nil when it has them): an
    /// ``AccessoryError/io(device:reason:)`` naming the accessory, its path and the reason.
    func linesUnavailable(_ status: ModemLineStatus?) -> AccessoryError? {
        if case .rfcomm = settings.source {
            return .io(device: name, reason: "modem lines are not available on \(name): an RFCOMM link has none")
        }
        guard let status else { return nil }
        if case .unsupported = status {
            return .io(
                device: name,
                reason: "modem lines are not available on \(devicePath ?? name): not a serial port (ENOTTY)"
            )
        }
        return nil
    }

    /// The lines now, or nil when the accessory is not open, has none, or reading them failed.
    func currentLines() -> ModemLines? {
        guard state == .ready, let port, case .lines(let lines)? = try? port.modemLines() else { return nil }
        return lines
    }

    /// What the driver tells of the line now (RFC 2217's line state), or nil when the accessory
    /// is not ready. Each ioctl a driver does not answer leaves its field nil.
    func currentLineStatus() -> SerialLineStatus? {
        guard state == .ready, let fd = port?.channel.fileDescriptor else { return nil }
        return SerialLineStatus(
            outputQueued: try? Termios.outputQueued(fd),
            transmitterEmpty: try? Termios.transmitterEmpty(fd),
            counts: try? Termios.interruptCounts(fd)
        )
    }

    /// The lines as `device.status`, `control` and `device.lines` report them.
    static func lineState(_ lines: ModemLines) -> ModemLineState {
        ModemLineState(
            dtr: lines.contains(.dtr),
            rts: lines.contains(.rts),
            cts: lines.contains(.cts),
            dsr: lines.contains(.dsr),
            dcd: lines.contains(.cd),
            ri: lines.contains(.ri)
        )
    }

    /// Starts or stops polling the lines (``LinePoll``); `changed` is told each change (not the
    /// first reading).
    func pollLines(_ wanted: Bool, changed: @escaping (Accessory, ModemLines) -> Void) {
        loop.assertInLoop()
        guard wanted else {
            linePoll.stop()
            return
        }
        // Through the link, as every timer's callback: the poll holds no accessory.
        linePoll.start(
            read: { [link] in link.accessory?.currentLines() },
            changed: { [link] lines in
                if let a = link.accessory { changed(a, lines) }
            }
        )
    }
}
