import ControlProtocol
import IOLoop
import Transports

/// The accessory's modem lines: reading them for `device.status` and `control`, and polling them
/// for `device.lines` while some client subscribes.
///
/// Polled, not waited for: `TIOCMIWAIT` blocks its thread until a line changes, which would need
/// a thread per accessory, and many USB adapters never wake it. A `TIOCMGET` every
/// ``linePollInterval`` costs one ioctl and runs only while a subscriber asks for `lines`; a
/// change shorter than the interval (an RI ring pulse) may be missed. Device loop only.
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

    /// `{dtr, rts, cts, dsr, dcd, ri}`, each true when asserted.
    static func linesJSON(_ lines: ModemLines) -> JSONValue {
        var o = JSONObject()
        for (line, key) in [
            (ModemLines.dtr, "dtr"), (.rts, "rts"), (.cts, "cts"), (.dsr, "dsr"), (.cd, "dcd"), (.ri, "ri"),
        ] {
            o.append(key, .bool(lines.contains(line)))
        }
        return .object(o)
    }

    /// Starts or stops polling the lines; `changed` is told each change (not the first reading).
    func pollLines(_ wanted: Bool, changed: @escaping (Accessory, ModemLines) -> Void) {
        guard wanted != (linePoll != nil) else { return }
        linePoll?.cancel()
        linePoll = nil
        lastPolledLines = nil
        guard wanted else { return }
        linePoll = loop.scheduleTimer(
            at: loop.now + Self.linePollInterval,
            repeating: Self.linePollInterval,
            modes: [.common]
        ) { [link] in
            guard let a = link.accessory else { return }
            // Closed or without lines: nothing to compare, and a reopen starts afresh.
            guard let lines = a.currentLines() else {
                a.lastPolledLines = nil
                return
            }
            defer { a.lastPolledLines = lines }
            if let last = a.lastPolledLines, last != lines { changed(a, lines) }
        }
    }
}
