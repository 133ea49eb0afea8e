/// One report of the host's modem-line outputs, as a pty stand-in sends it to a simulator: the
/// datagram `lines dtr=<0|1> rts=<0|1>` (ASCII, no line end). A pty has no modem lines, so this
/// is how a simulated accessory learns what a UART's DTR and RTS pins would show
/// (``SocketLineStandIn`` sends it, `accessory-sim --lines-socket` receives it).
///
/// Threading: a value. Any thread.
public struct ModemLineReport: Sendable, Equatable, CustomStringConvertible {
    /// DTR asserted.
    public var dtr: Bool
    /// RTS asserted.
    public var rts: Bool

    public init(dtr: Bool, rts: Bool) {
        self.dtr = dtr
        self.rts = rts
    }

    /// The report of the output lines in `lines`.
    public init(_ lines: ModemLines) {
        self.init(dtr: lines.contains(.dtr), rts: lines.contains(.rts))
    }

    /// The datagram.
    public var encoded: [UInt8] { Array(description.utf8) }

    public var description: String { "lines dtr=\(dtr ? 1 : 0) rts=\(rts ? 1 : 0)" }

    /// Parses a datagram; nil for anything that is not exactly a report.
    public init?(decoding bytes: some Collection<UInt8>) {
        guard bytes.count == 17 else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        let fields = text.split(separator: " ")
        guard fields.count == 3, fields[0] == "lines" else { return nil }
        func level(_ field: Substring, _ name: String) -> Bool? {
            switch field {
            case "\(name)=1": true
            case "\(name)=0": false
            default: nil
            }
        }
        guard let dtr = level(fields[1], "dtr"), let rts = level(fields[2], "rts") else { return nil }
        self.init(dtr: dtr, rts: rts)
    }
}
