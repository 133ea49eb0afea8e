/// Where an accessory is: exactly one of `path`, `match`, `rfcomm`, `simulate`.
///
/// Threading: a value. Any thread.
public enum AccessorySource: Sendable, Equatable {
    /// A device node (or a symlink to one), opened when it exists.
    case path(String)
    /// A udev identity, matched on hot-plug and enumeration.
    case match(UdevMatch)
    /// A Bluetooth RFCOMM socket.
    case rfcomm(RFCOMMTarget)
    /// An `accessory-sim` personality on a pseudo-terminal, started by the daemon.
    case simulate(Simulation)
}

/// `match:` — udev properties a device must all have.
///
/// Threading: a value. Any thread.
public struct UdevMatch: Sendable, Equatable {
    /// `ID_VENDOR_ID`, four lowercase hex digits.
    public var vendorID: String?
    /// `ID_MODEL_ID`, four lowercase hex digits.
    public var productID: String?
    /// `ID_SERIAL_SHORT`.
    public var serial: String?
    /// The link name under `/dev/serial/by-id/` (a full path in the file is reduced to it).
    public var byID: String?

    public init(vendorID: String? = nil, productID: String? = nil, serial: String? = nil, byID: String? = nil) {
        self.vendorID = vendorID
        self.productID = productID
        self.serial = serial
        self.byID = byID
    }
}

/// `rfcomm:` — a Bluetooth device address and RFCOMM channel.
///
/// Threading: a value. Any thread.
public struct RFCOMMTarget: Sendable, Equatable {
    /// `XX:XX:XX:XX:XX:XX`, uppercase hex.
    public var address: String
    /// 1 ... 30.
    public var channel: Int

    public init(address: String, channel: Int) {
        self.address = address
        self.channel = channel
    }

    /// The six address bytes as written (most significant first), or `nil` if malformed.
    public var addressBytes: [UInt8]? {
        let parts = address.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard part.utf8.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}

/// `simulate:` — a simulated accessory.
///
/// Threading: a value. Any thread.
public struct Simulation: Sendable, Equatable {
    /// The simulator's behaviours.
    ///
    /// Threading: a value. Any thread.
    public enum Personality: String, Sendable, CaseIterable {
        /// Echoes each frame back.
        case echo
        /// Answers AT commands with final result codes; emits unsolicited codes.
        case atModem = "at-modem"
        /// Emits NMEA sentences periodically.
        case nmea
        /// Echoes frames using the accessory's framing (SLIP, COBS, length-prefixed).
        case framed
        /// Follows a script of expected requests and replies.
        case script
        /// Plays a recording back (`file:`, docs/replay.md).
        case replay
        /// An ESP32's ROM serial loader (SLIP) behind the usual DTR/RTS auto-reset circuit.
        case esp32ROM = "esp32-rom"
    }

    /// One `key: value` for `accessory-sim`, in file order: the daemon passes it as
    /// `--<key with "_" turned into "-"> <value>` (e.g. `unsolicited_ms: 3000` is
    /// `--unsolicited-ms 3000`, `framing: slip` is `--framing slip`).
    ///
    /// Threading: a value. Any thread.
    public struct Option: Sendable, Equatable {
        public var key: String
        public var value: String

        public init(key: String, value: String) {
            self.key = key
            self.value = value
        }
    }

    public var personality: Personality
    public var options: [Option]

    public init(personality: Personality, options: [Option] = []) {
        self.personality = personality
        self.options = options
    }
}
