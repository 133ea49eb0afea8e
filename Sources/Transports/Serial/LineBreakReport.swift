/// One report of the break condition on a host's line, as a pty stand-in sends it to a
/// simulator beside the ``ModemLineReport``s: the datagram `break on` or `break off` (ASCII, no
/// line end). A pty takes `TIOCSBRK` and does nothing with it, so this is how a simulated
/// accessory (and a replay comparing the program's breaks with a recording's) learns of a break
/// and its length.
///
/// Threading: a value. Any thread.
public struct LineBreakReport: Sendable, Equatable, CustomStringConvertible {
    /// The line is held in the break condition from now (`true`) or released (`false`).
    public var on: Bool

    public init(on: Bool) {
        self.on = on
    }

    /// The datagram.
    public var encoded: [UInt8] { Array(description.utf8) }

    public var description: String { on ? "break on" : "break off" }

    /// Parses a datagram; nil for anything that is not exactly a break report.
    public init?(decoding bytes: some Collection<UInt8>) {
        switch String(decoding: bytes.prefix(10), as: UTF8.self) {
        case "break on" where bytes.count == 8: self.init(on: true)
        case "break off" where bytes.count == 9: self.init(on: false)
        default: return nil
        }
    }
}
