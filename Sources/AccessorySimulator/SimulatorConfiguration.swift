/// Everything that defines one simulated accessory: its name, personality, timing, faults and
/// where its device path is published.
///
/// Any thread (a value).
package struct SimulatorConfiguration: Sendable {
    /// The name printed in `READY` lines and used in messages (no spaces).
    package var name: String
    /// How the accessory answers.
    package var personality: Personality
    /// How inbound lines end, for `echo` and `script` (`at-modem` always accepts `\r`, `\n` and
    /// `\r\n`). Echo replies end with the same terminator. `.none` makes `echo` a raw byte echo.
    package var terminator: LineTerminator
    /// Added before every reply (the accessory's processing time).
    package var responseDelay: Duration
    /// The period of unsolicited output: `RING`/`+CMTI` lines for `at-modem` (none when nil), the
    /// fix interval for `nmea` (one second when nil). Ignored by the other personalities.
    package var unsolicitedInterval: Duration?
    /// Misbehaviour to inject.
    package var faults: FaultSwitches
    /// If set, a symbolic link at this path points to the current slave (created atomically).
    package var linkPath: String?
    /// While hung up, leave the link dangling instead of removing it (udev removes it).
    package var keepLinkWhileGone: Bool
    /// Longest inbound line or frame; longer ones are discarded up to the next terminator.
    package var maxInboundLength: Int
    /// Seeds the generator of garbage bytes and fault probabilities; random when nil.
    package var seed: UInt64?
    /// When set, every reply of two bytes or more leaves in two writes, the second half this long
    /// after the first: the reader sees one frame split across reads.
    package var splitReplies: Duration?
    /// For `framed` and the raw `echo` (terminator `.none`): each reply carries the received
    /// payload this many times, so that answers can be longer than requests (to exceed a frame
    /// limit on the reading side).
    package var replyRepeat: Int
    /// If set, a Unix datagram socket at this path (mode 0600) takes ``ModemLineReport``s: the
    /// host's DTR and RTS, which a pty cannot carry (`SimulatedAccessory+Lines.swift`).
    package var linesSocketPath: String?

    package init(
        name: String = "sim",
        personality: Personality = .echo,
        terminator: LineTerminator = .lf,
        responseDelay: Duration = .zero,
        unsolicitedInterval: Duration? = nil,
        faults: FaultSwitches = FaultSwitches(),
        linkPath: String? = nil,
        keepLinkWhileGone: Bool = false,
        maxInboundLength: Int = 65_536,
        seed: UInt64? = nil,
        splitReplies: Duration? = nil,
        replyRepeat: Int = 1,
        linesSocketPath: String? = nil
    ) {
        self.name = name
        self.personality = personality
        self.terminator = terminator
        self.responseDelay = responseDelay
        self.unsolicitedInterval = unsolicitedInterval
        self.faults = faults
        self.linkPath = linkPath
        self.keepLinkWhileGone = keepLinkWhileGone
        self.maxInboundLength = maxInboundLength
        self.seed = seed
        self.splitReplies = splitReplies
        self.replyRepeat = replyRepeat
        self.linesSocketPath = linesSocketPath
    }

    /// Checks the values that cannot be expressed by the types. Any thread.
    package func validate() throws(SimulatorError) {
        if name.isEmpty || name.contains(where: { $0 == " " || $0 == "\t" || $0 == "\n" }) {
            throw .invalidConfiguration("the name \"\(name)\" must be non-empty and contain no spaces")
        }
        if maxInboundLength < 1 { throw .invalidConfiguration("maxInboundLength must be at least 1") }
        if let u = unsolicitedInterval, u <= .zero {
            throw .invalidConfiguration("the unsolicited interval must be positive")
        }
        if responseDelay < .zero { throw .invalidConfiguration("the response delay must not be negative") }
        if let s = splitReplies, s <= .zero { throw .invalidConfiguration("the split-reply pause must be positive") }
        if !(1...1024).contains(replyRepeat) { throw .invalidConfiguration("replyRepeat must be from 1 to 1024") }
        try faults.validate()
    }
}

/// How a simulated accessory answers. Any thread (a value).
package enum Personality: Sendable, Equatable {
    /// Each line is written back with the same terminator.
    case echo
    /// A small Hayes AT command set with final results, multi-line answers and unsolicited lines.
    case atModem
    /// A stream of GPS sentences (GGA and RMC) with valid checksums; input is ignored.
    case nmea
    /// Each SLIP, COBS or length-prefixed frame is decoded and echoed re-encoded.
    case framed(Framing)
    /// Expect/send steps read from a YAML file.
    case script(SimulatorScript)
    /// A recording played back (docs/replay.md).
    case replay(ReplayPlan)
    /// An ESP32's ROM serial loader behind the DTR/RTS auto-reset circuit (``ESP32ROMResponder``).
    case esp32ROM(ESP32Boot)

    /// The name used on the command line.
    package var name: String {
        switch self {
        case .echo: return "echo"
        case .atModem: return "at-modem"
        case .nmea: return "nmea"
        case .framed: return "framed"
        case .script: return "script"
        case .replay: return "replay"
        case .esp32ROM: return "esp32-rom"
        }
    }
}

/// The frame encodings of the `framed` personality. Any thread (a value).
package enum Framing: String, Sendable, CaseIterable {
    /// RFC 1055: frames end with 0xC0; 0xC0 and 0xDB inside are escaped.
    case slip
    /// Consistent Overhead Byte Stuffing, each frame followed by a 0x00 delimiter.
    case cobs
    /// A two-byte big-endian payload length, then the payload (``LengthPrefixCodec``).
    case lengthPrefixed = "length-prefixed"
}

/// Where inbound lines end. Any thread (a value).
package enum LineTerminator: String, Sendable, CaseIterable {
    /// `\n`
    case lf
    /// `\r\n` (a lone `\r` is part of the line)
    case crlf
    /// `\r`
    case cr
    /// Any of `\n`, `\r\n` or `\r`; a `\n` that arrives in a later read right after a `\r` is
    /// taken as the rest of that `\r`'s line end.
    case any
    /// No lines: bytes are handled as they arrive (raw echo).
    case none

    /// The terminator's bytes (`\r\n` for `.any`, nothing for `.none`).
    package var bytes: [UInt8] {
        switch self {
        case .lf: return [0x0A]
        case .crlf: return [0x0D, 0x0A]
        case .cr: return [0x0D]
        case .any: return [0x0D, 0x0A]
        case .none: return []
        }
    }
}
