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

    public init(
        baud: Int = 115_200,
        dataBits: Int = 8,
        parity: Parity = .none,
        stopBits: Int = 1,
        flow: FlowControl = .none
    ) {
        self.baud = baud
        self.dataBits = dataBits
        self.parity = parity
        self.stopBits = stopBits
        self.flow = flow
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
