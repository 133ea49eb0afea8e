/// The allowed values of every numeric setting, shared by decoding (for type errors) and
/// ``validate(_:)`` (for range errors), so both describe a value the same way.
///
/// Threading: constants. Any thread.
enum Rules {
    static let positive = "a positive integer"
    static let maxClients = IntRule(1...65_536, "an integer from 1 to 65536")
    static let maxLineBytes = IntRule(1_024...16_777_216, "a byte count from 1024 to 16777216")
    static let clientOutboundBytes = IntRule(4_096...1_073_741_824, "a byte count from 4096 to 1073741824")
    static let reservedConnections = IntRule(0...1_024, "an integer from 0 to 1024")
    static let listenerConnections = IntRule(1...1_024, "an integer from 1 to 1024")
    static let subnegotiationBytes = IntRule(16...65_536, "a byte count from 16 to 65536")
    static let queueDepth = IntRule(1...65_536, "an integer from 1 to 65536")
    static let maxRequestsPerClient = IntRule(1...1_048_576, "an integer from 1 to 1048576")
    static let timeoutMs = IntRule(1...86_400_000, "a positive integer (milliseconds, at most 86400000)")
    static let baud = IntRule(1...Int(UInt32.max), positive)
    static let dataBits = IntRule(5...8, "5, 6, 7 or 8")
    static let stopBits = IntRule(1...2, "1 or 2")
    static let channel = IntRule(1...30, "an RFCOMM channel from 1 to 30")
    static let width = IntRule(1...4, "1, 2 or 4", allowed: [1, 2, 4])
    static let gapMs = IntRule(1...60_000, "a positive integer (milliseconds, at most 60000)")
    static let maxFrameBytes = IntRule(1...16_777_216, "a byte count from 1 to 16777216")
    static let settleMs = IntRule(0...60_000, "a non-negative integer (milliseconds, at most 60000)")
    static let lateMs = IntRule(0...86_400_000, "a non-negative integer (milliseconds, at most 86400000)")
    static let backoffMs = IntRule(1...3_600_000, "a positive integer (milliseconds, at most 3600000)")
    static let traceMaxBytes = IntRule(1_024...1 << 40, "a byte count from 1024 to 1099511627776")
    static let traceKeep = IntRule(0...1_000, "an integer from 0 to 1000")
    static let viewBufferBytes = IntRule(1_024...16_777_216, "a byte count from 1024 to 16777216")
    static let principalID = IntRule(0...4_294_967_294, "a name or a numeric id")

    /// The longest Unix socket path (`sun_path` holds 108 bytes with the terminating NUL).
    static let maxSocketPathBytes = 107
    /// The longest line delimiter or terminator.
    static let maxDelimiterBytes = 16
    /// The longest accessory name.
    static let maxNameBytes = 64

    /// `[a-z0-9_.-]{1,64}`.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maxNameBytes
            && name.utf8.allSatisfy { byte in
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F || byte == 0x2E
                    || byte == 0x2D
            }
    }

    /// A user or group name: `[A-Za-z_][A-Za-z0-9_.-]*` with an optional trailing `$`, at most 32 bytes.
    static func isValidPrincipalName(_ name: String) -> Bool {
        var bytes = Array(name.utf8)
        if bytes.last == 0x24 { bytes.removeLast() }
        guard let first = bytes.first, bytes.count <= 32 else { return false }
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A || byte == 0x5F }
        guard isLetter(first) else { return false }
        return bytes.allSatisfy { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D }
    }

    /// Exactly four hex digits.
    static func isUSBID(_ text: String) -> Bool {
        text.utf8.count == 4 && text.utf8.allSatisfy { isHexDigit($0) }
    }

    /// `XX:XX:XX:XX:XX:XX`.
    static func isBluetoothAddress(_ text: String) -> Bool {
        RFCOMMTarget(address: text, channel: 1).addressBytes != nil
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66)
    }

    /// Why `pattern` does not compile as a Swift `Regex`, or `nil` if it does.
    ///
    /// Never inlined: inlined, the `Regex` type's metadata was fetched ahead of the check for a
    /// configured pattern, which ran the regular expression library's code (and kept its pages
    /// resident) in every daemon (docs/packaging.md, "Footprint").
    @inline(never)
    static func regexProblem(_ pattern: String) -> String? {
        do {
            _ = try Regex(pattern)
            return nil
        } catch {
            return "\(error)"
        }
    }
}
