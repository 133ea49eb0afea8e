import SystemCalls

/// Why a transport could not be opened, configured, connected or written to. Each case's
/// `description` is a sentence a person understands ("/dev/ttyUSB0 is in use by another process").
///
/// Device loss after opening is not an error thrown here: it is the channel's one
/// ``StreamChannel/onGone`` event. Any thread (a value).
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The device path does not exist (or names no device behind it).
    case notFound(path: String)
    /// A descriptor kept from before (across a restart) is not the device at the path any more.
    case replaced(path: String)
    /// Another process holds the device (`TIOCEXCL` or the `flock`).
    case inUse(path: String)
    /// The daemon may not open the device (`EACCES`: the file's owner, group and mode).
    case permissionDenied(path: String)
    /// The device cgroup refused the open (`EPERM` on a device node: under systemd, the unit's
    /// `DevicePolicy=` with no `DeviceAllow=` for this driver). `deviceAllow` is the line to add
    /// (``DeviceAllowHint``), when it could be worked out.
    case refusedByDevicePolicy(path: String, deviceAllow: String?)
    /// The path is not a terminal device, so it cannot be a serial port.
    case notATerminal(path: String)
    /// A requested setting is out of range (before anything reached the device).
    case invalidSettings(String)
    /// The device accepted the settings call but reads back something else.
    case settingsMismatch(path: String, setting: String, requested: String, actual: String)
    /// The channel is closed, or the device is gone.
    case closed
    /// Accepting the write would queue more than the channel's outbound limit.
    case outboundLimitExceeded(limit: Int, queued: Int, attempted: Int)
    /// An operation on the device did not complete in time.
    case timedOut(operation: String, path: String)
    /// The text is not a Bluetooth address of the form `XX:XX:XX:XX:XX:XX`.
    case invalidBluetoothAddress(String)
    /// RFCOMM channels are 1–30.
    case invalidRFCOMMChannel(Int)
    /// This host has no Bluetooth (`EAFNOSUPPORT`): no kernel support or no adapter.
    case bluetoothUnavailable
    /// The accessory did not answer (`EHOSTDOWN`, `ECONNREFUSED`, `ETIMEDOUT`, `EHOSTUNREACH`, or
    /// our own connect timeout, shown as `ETIMEDOUT`).
    case accessoryAbsent(address: String, reason: Errno)
    /// Any other failed system call, with what we were doing.
    case system(context: String, SyscallError)

    public var description: String {
        switch self {
        case .notFound(let path):
            return "\(path) does not exist"
        case .replaced(let path):
            return "the descriptor kept for \(path) is not the device at \(path) now (replugged or replaced)"
        case .inUse(let path):
            return "\(path) is in use by another process"
        case .permissionDenied(let path) where path.hasPrefix("/dev/"):
            return "permission denied opening \(path) (is the daemon's user in the device's group, e.g. dialout?)"
        case .permissionDenied(let what):
            return "permission denied opening \(what)"
        case .refusedByDevicePolicy(let path, let deviceAllow):
            // Not the group hint: file permissions are not what refused it, so adding the user to
            // dialout would change nothing.
            let fix =
                deviceAllow.map { "add \($0) to the unit (a drop-in in /etc/systemd/system/accessoryd.service.d/)" }
                ?? "add a DeviceAllow= line for its driver to the unit"
            return "opening \(path) was refused by the device policy (EPERM): "
                + "the service's DevicePolicy= allows only the devices its DeviceAllow= lines name; \(fix)"
        case .notATerminal(let path):
            return "\(path) is not a serial device (not a terminal)"
        case .invalidSettings(let what):
            return "invalid serial settings: \(what)"
        case .settingsMismatch(let path, let setting, let requested, let actual):
            return "\(path) did not accept \(setting) \(requested): the device reports \(actual)"
        case .closed:
            return "the connection to the accessory is closed"
        case .outboundLimitExceeded(let limit, let queued, let attempted):
            return
                "cannot queue \(attempted) more bytes: \(queued) are already waiting and the limit is \(limit)"
        case .timedOut(let operation, let path):
            return "\(operation) on \(path) timed out"
        case .invalidBluetoothAddress(let text):
            return "\"\(text)\" is not a Bluetooth address (expected XX:XX:XX:XX:XX:XX)"
        case .invalidRFCOMMChannel(let channel):
            return "RFCOMM channel \(channel) is out of range (1–30)"
        case .bluetoothUnavailable:
            return "Bluetooth is unavailable on this host"
        case .accessoryAbsent(let address, let reason):
            return "the accessory at \(address) is absent (\(reason.description))"
        case .system(let context, let error):
            return "\(context): \(error)"
        }
    }
}
