/// `serial:` — termios line settings.
///
/// Threading: a value. Any thread.
public struct SerialLineSettings: Sendable, Equatable {
    /// Bits per second; a non-standard value uses termios2/`BOTHER`.
    public var baud: Int
    /// 5 ... 8.
    public var dataBits: Int
    public var parity: Parity
    /// 1 or 2.
    public var stopBits: Int
    public var flow: FlowControl
    /// `hangup_on_close`: whether closing the port drops DTR (termios `HUPCL`). True, the
    /// kernel's default; false keeps a board that resets on a DTR drop running when the daemon
    /// closes its port (removal, `enabled: false`, a stop).
    public var hangupOnClose: Bool

    public init(
        baud: Int = 115_200,
        dataBits: Int = 8,
        parity: Parity = .none,
        stopBits: Int = 1,
        flow: FlowControl = .none,
        hangupOnClose: Bool = true
    ) {
        self.baud = baud
        self.dataBits = dataBits
        self.parity = parity
        self.stopBits = stopBits
        self.flow = flow
        self.hangupOnClose = hangupOnClose
    }

    /// Parity settings.
    ///
    /// Threading: a value. Any thread.
    public enum Parity: String, Sendable, CaseIterable {
        case none
        case even
        case odd
        case mark
        case space
    }

    /// Flow control settings.
    ///
    /// Threading: a value. Any thread.
    public enum FlowControl: String, Sendable, CaseIterable {
        case none
        /// Hardware (RTS/CTS).
        case rtscts
        /// Software (XON/XOFF).
        case xonxoff
    }
}
