/// The line settings of a serial port: speed, character format and flow control. The port is
/// always in raw mode (no echo, no line editing, no character translation).
///
/// Any thread (a value).
public struct SerialSettings: Sendable, Hashable, CustomStringConvertible {
    /// Character size.
    public enum DataBits: Int, Sendable, Hashable, CaseIterable {
        case five = 5
        case six = 6
        case seven = 7
        case eight = 8
    }

    /// Parity bit. `mark` and `space` are "stick" parity (`CMSPAR`).
    public enum Parity: String, Sendable, Hashable, CaseIterable {
        case none, even, odd, mark, space
    }

    /// Stop bits.
    public enum StopBits: Int, Sendable, Hashable, CaseIterable {
        case one = 1
        case two = 2
    }

    /// Flow control.
    public enum FlowControl: String, Sendable, Hashable, CaseIterable {
        /// None: the port ignores the modem lines (`CLOCAL`).
        case none
        /// Hardware RTS/CTS (`CRTSCTS`).
        case rtsCts = "rtscts"
        /// Software XON/XOFF (`IXON|IXOFF`); bytes 0x11 and 0x13 then cannot be data.
        case xonXoff = "xonxoff"
    }

    /// Bits per second: any rate; rates without a `Bnnn` code are set through `BOTHER`.
    public var baudRate: UInt32
    public var dataBits: DataBits
    public var parity: Parity
    public var stopBits: StopBits
    public var flowControl: FlowControl
    /// Whether the last close of the port drops DTR and RTS (`HUPCL`, the kernel's default). Many
    /// boards reset when DTR drops (an Arduino reboots, an ESP32 may enter its boot loader).
    public var hangUpOnClose: Bool

    public init(
        baudRate: UInt32 = 115_200,
        dataBits: DataBits = .eight,
        parity: Parity = .none,
        stopBits: StopBits = .one,
        flowControl: FlowControl = .none,
        hangUpOnClose: Bool = true
    ) {
        self.baudRate = baudRate
        self.dataBits = dataBits
        self.parity = parity
        self.stopBits = stopBits
        self.flowControl = flowControl
        self.hangUpOnClose = hangUpOnClose
    }

    /// Relative difference between a requested and a reported custom rate that still counts as
    /// the same rate: UART clock dividers rarely hit an odd rate exactly, and 2% is within what
    /// the far end tolerates.
    public static let baudTolerance = 0.02

    /// Checks what can be checked before touching a device.
    public func validate() throws(TransportError) {
        guard baudRate > 0 else { throw .invalidSettings("the baud rate must be positive") }
    }

    /// `115200 8N1, flow none` style.
    public var description: String {
        let p: String
        switch parity {
        case .none: p = "N"
        case .even: p = "E"
        case .odd: p = "O"
        case .mark: p = "M"
        case .space: p = "S"
        }
        return "\(baudRate) \(dataBits.rawValue)\(p)\(stopBits.rawValue), flow \(flowControl.rawValue)"
    }
}
