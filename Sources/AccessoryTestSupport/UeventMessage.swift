/// A udev netlink message as udevd multicasts it to group 2 after its rules ran: a 40-byte header
/// ("libudev\0", magic 0xfeedcafe and the filter hashes in network order, sizes in host order)
/// followed by `KEY=value\0` properties. libudev monitors accept it from a uid-0 sender; the kernel
/// drops it for monitors whose subsystem filter does not match the header's hash.
///
/// Any thread (a value).
package struct UeventMessage: Sendable, Equatable {
    /// One `KEY=value` property, in wire order.
    ///
    /// Any thread (a value).
    package struct Property: Sendable, Equatable {
        package var key: String
        package var value: String
        package init(_ key: String, _ value: String) {
            self.key = key
            self.value = value
        }
    }

    package static let prefix = Array("libudev".utf8) + [0]
    package static let magic: UInt32 = 0xfeed_cafe
    package static let headerSize = 40

    /// The properties, in the order they are sent.
    package var properties: [Property]
    /// Replaces the header's subsystem hash (tests of the kernel filter); nil: the hash of `SUBSYSTEM`.
    package var subsystemHashOverride: UInt32?
    /// Replaces the magic (tests of libudev's check); nil: 0xfeedcafe.
    package var magicOverride: UInt32?

    /// A message with `ACTION`, `DEVPATH`, `SUBSYSTEM`, `DEVNAME` (when given), `SEQNUM`, then
    /// `extra` in order.
    package init(
        action: String,
        devPath: String,
        subsystem: String = "tty",
        devName: String? = nil,
        seqnum: UInt64,
        extra: [Property] = []
    ) {
        var list = [Property("ACTION", action), Property("DEVPATH", devPath), Property("SUBSYSTEM", subsystem)]
        if let devName { list.append(Property("DEVNAME", devName)) }
        list.append(Property("SEQNUM", String(seqnum)))
        properties = list + extra
    }

    /// The value of the first property named `key`.
    package func value(of key: String) -> String? { properties.first { $0.key == key }?.value }

    /// The bytes to send.
    package func encoded() -> [UInt8] {
        var body: [UInt8] = []
        for p in properties { body += Array("\(p.key)=\(p.value)".utf8) + [0] }
        let subsystemHash = subsystemHashOverride ?? value(of: "SUBSYSTEM").map(MurmurHash2.hash) ?? 0
        let devtypeHash = value(of: "DEVTYPE").map(MurmurHash2.hash) ?? 0
        let tags = (value(of: "TAGS") ?? "").split(separator: ":").map(String.init)
        let bloom = tags.reduce(UInt64(0)) { $0 | MurmurHash2.bloom64($1) }
        var out = Self.prefix
        out += Self.bigEndian(magicOverride ?? Self.magic)
        out += Self.hostOrder(UInt32(Self.headerSize))  // header_size
        out += Self.hostOrder(UInt32(Self.headerSize))  // properties_off
        out += Self.hostOrder(UInt32(body.count))  // properties_len
        out += Self.bigEndian(subsystemHash)
        out += Self.bigEndian(devtypeHash)
        out += Self.bigEndian(UInt32(truncatingIfNeeded: bloom >> 32))
        out += Self.bigEndian(UInt32(truncatingIfNeeded: bloom))
        return out + body
    }

    /// Why bytes are not a message libudev would accept.
    ///
    /// Any thread (a value).
    package enum DecodingError: Error, Sendable, Equatable {
        case notLibudev
        case badMagic(UInt32)
        case tooShort
        case badProperty(String)
        case missing(String)
    }

    /// Decodes and checks bytes the way libudev's receiver does: the prefix, the magic, at least
    /// 32 bytes of properties, and `ACTION`, `DEVPATH`, `SUBSYSTEM` and a non-zero `SEQNUM`.
    /// The hash fields are checked against the properties (a wrong one is kept as an override).
    package init(decoding bytes: [UInt8]) throws(DecodingError) {
        guard bytes.count >= Self.headerSize, Array(bytes[0..<8]) == Self.prefix else { throw .notLibudev }
        let magic = Self.readBigEndian(bytes, at: 8)
        guard magic == Self.magic else { throw .badMagic(magic) }
        let offset = Int(Self.readHostOrder(bytes, at: 16))
        let length = Int(Self.readHostOrder(bytes, at: 20))
        guard offset + 32 <= bytes.count, offset + length <= bytes.count else { throw .tooShort }
        var list: [Property] = []
        for field in bytes[offset..<(offset + length)].split(separator: 0) {
            let text = String(decoding: field, as: UTF8.self)
            guard let eq = text.firstIndex(of: "="), eq != text.startIndex else { throw .badProperty(text) }
            list.append(Property(String(text[..<eq]), String(text[text.index(after: eq)...])))
        }
        properties = list
        for key in ["ACTION", "DEVPATH", "SUBSYSTEM"] where value(of: key) == nil { throw .missing(key) }
        guard let seq = value(of: "SEQNUM").flatMap(UInt64.init), seq != 0 else { throw .missing("SEQNUM") }
        let hash = Self.readBigEndian(bytes, at: 24)
        subsystemHashOverride = hash == value(of: "SUBSYSTEM").map(MurmurHash2.hash) ? nil : hash
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] {
        [
            UInt8(v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8),
            UInt8(truncatingIfNeeded: v),
        ]
    }

    static func hostOrder(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v) { Array($0) } }

    static func readBigEndian(_ b: [UInt8], at i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    static func readHostOrder(_ b: [UInt8], at i: Int) -> UInt32 {
        b[i..<(i + 4)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
    }
}
