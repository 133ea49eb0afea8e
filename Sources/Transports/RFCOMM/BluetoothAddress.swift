/// A Bluetooth device address (`BD_ADDR`), written `XX:XX:XX:XX:XX:XX` with the most significant
/// byte first, as `bluetoothctl` and `hcitool` print it. Any thread (a value).
public struct BluetoothAddress: Sendable, Hashable, CustomStringConvertible {
    /// The six bytes in written order (most significant first).
    public let bytes: [UInt8]

    /// Parses `XX:XX:XX:XX:XX:XX` (hex digits in either case; `-` also accepted as separator).
    public init(parsing text: String) throws(TransportError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let groups = parts.count == 6 ? parts : text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.count == 6 else { throw .invalidBluetoothAddress(text) }
        var out: [UInt8] = []
        out.reserveCapacity(6)
        for g in groups {
            guard g.utf8.count == 2, g.utf8.allSatisfy(\.isHexDigit), let b = UInt8(g, radix: 16) else {
                throw .invalidBluetoothAddress(text)
            }
            out.append(b)
        }
        bytes = out
    }

    /// From six bytes in written order.
    public init(bytes: [UInt8]) {
        precondition(bytes.count == 6, "a Bluetooth address has six bytes")
        self.bytes = bytes
    }

    /// The kernel's `bdaddr_t`: the same bytes, least significant first (as `str2ba` makes).
    public var bdaddr: [UInt8] { bytes.reversed() }

    /// `XX:XX:XX:XX:XX:XX`, upper case.
    public var description: String {
        bytes.map { b in
            let s = String(b, radix: 16, uppercase: true)
            return b < 16 ? "0" + s : s
        }.joined(separator: ":")
    }
}

/// An RFCOMM endpoint: a device address and a server channel (1–30). Any thread (a value).
public struct RFCOMMEndpoint: Sendable, Hashable, CustomStringConvertible {
    public let address: BluetoothAddress
    public let channel: UInt8

    /// Validates the channel (RFCOMM server channels are 1–30).
    public init(address: BluetoothAddress, channel: Int) throws(TransportError) {
        guard (1...30).contains(channel) else { throw .invalidRFCOMMChannel(channel) }
        self.address = address
        self.channel = UInt8(channel)
    }

    public var description: String { "\(address) channel \(channel)" }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
