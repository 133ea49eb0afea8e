/// A client's COM-PORT-OPTION command (RFC 2217), decoded from its subnegotiation payload. The
/// server's answer to each carries the command's code plus 100 (``ComPortReply``).
///
/// Threading: a value. Any thread.
public enum ComPortRequest: Sendable, Equatable {
    /// The client's signature text, or empty: a request for the server's.
    case signature([UInt8])
    /// Bits per second; 0 asks for the current rate.
    case setBaudRate(UInt32)
    /// 5…8 bits; 0 asks.
    case setDataSize(UInt8)
    /// 1 none, 2 odd, 3 even, 4 mark, 5 space; 0 asks.
    case setParity(UInt8)
    /// 1 one, 2 two, 3 one and a half; 0 asks.
    case setStopSize(UInt8)
    /// Flow control, BREAK, DTR, RTS and their queries (``ComPortControl``).
    case setControl(UInt8)
    /// The client asks for the line state now.
    case notifyLineState
    /// The client asks for the modem state now (how pyserial polls).
    case notifyModemState
    /// The client cannot take more data for now / again can.
    case flowControlSuspend
    case flowControlResume
    case setLineStateMask(UInt8)
    case setModemStateMask(UInt8)
    /// 1 the receive buffer, 2 the transmit buffer, 3 both.
    case purgeData(UInt8)

    /// The command codes, client to server. Constants. Any thread.
    public enum Code {
        public static let signature: UInt8 = 0
        public static let setBaudRate: UInt8 = 1
        public static let setDataSize: UInt8 = 2
        public static let setParity: UInt8 = 3
        public static let setStopSize: UInt8 = 4
        public static let setControl: UInt8 = 5
        public static let notifyLineState: UInt8 = 6
        public static let notifyModemState: UInt8 = 7
        public static let flowControlSuspend: UInt8 = 8
        public static let flowControlResume: UInt8 = 9
        public static let setLineStateMask: UInt8 = 10
        public static let setModemStateMask: UInt8 = 11
        public static let purgeData: UInt8 = 12
    }

    /// The command in a COM-PORT-OPTION subnegotiation's payload, or nil when the payload is no
    /// command this server knows or has the wrong length for it (the caller counts and ignores it).
    public init?(payload: [UInt8]) {
        guard let code = payload.first else { return nil }
        let args = payload.dropFirst()
        let byte: UInt8? = args.count == 1 ? args.first : nil
        switch code {
        case Code.signature: self = .signature(Array(args))
        case Code.setBaudRate:
            guard args.count == 4 else { return nil }
            self = .setBaudRate(args.reduce(0) { $0 << 8 | UInt32($1) })
        case Code.notifyLineState where args.isEmpty: self = .notifyLineState
        case Code.notifyModemState where args.isEmpty: self = .notifyModemState
        case Code.flowControlSuspend where args.isEmpty: self = .flowControlSuspend
        case Code.flowControlResume where args.isEmpty: self = .flowControlResume
        default:
            guard let byte else { return nil }
            switch code {
            case Code.setDataSize: self = .setDataSize(byte)
            case Code.setParity: self = .setParity(byte)
            case Code.setStopSize: self = .setStopSize(byte)
            case Code.setControl: self = .setControl(byte)
            case Code.setLineStateMask: self = .setLineStateMask(byte)
            case Code.setModemStateMask: self = .setModemStateMask(byte)
            case Code.purgeData: self = .purgeData(byte)
            // A notification of the client's own (RFC 2217 gives it none, some send a byte):
            // taken as the request it resembles.
            case Code.notifyLineState: self = .notifyLineState
            case Code.notifyModemState: self = .notifyModemState
            default: return nil
            }
        }
    }
}

/// The server's COM-PORT-OPTION subnegotiations: every one carries the client's code plus 100.
/// Pure. Threading: a value. Any thread.
public enum ComPortReply {
    public static let offset: UInt8 = 100

    /// `IAC SB 44 (code+100) payload IAC SE`.
    public static func encode(_ code: UInt8, _ payload: [UInt8]) -> [UInt8] {
        TelnetEncoder.subnegotiation(Telnet.Option.comPort, [code + offset] + payload)
    }

    public static func baudRate(_ rate: UInt32) -> [UInt8] {
        encode(ComPortRequest.Code.setBaudRate, [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: rate >> $0) })
    }

    public static func byte(_ code: UInt8, _ value: UInt8) -> [UInt8] { encode(code, [value]) }
}

/// SET-CONTROL's values (RFC 2217). Threading: constants. Any thread.
public enum ComPortControl {
    public static let requestFlow: UInt8 = 0
    public static let flowNone: UInt8 = 1
    public static let flowXonXoff: UInt8 = 2
    public static let flowHardware: UInt8 = 3
    public static let requestBreak: UInt8 = 4
    public static let breakOn: UInt8 = 5
    public static let breakOff: UInt8 = 6
    public static let requestDTR: UInt8 = 7
    public static let dtrOn: UInt8 = 8
    public static let dtrOff: UInt8 = 9
    public static let requestRTS: UInt8 = 10
    public static let rtsOn: UInt8 = 11
    public static let rtsOff: UInt8 = 12
    public static let requestInboundFlow: UInt8 = 13
    public static let inboundFlowNone: UInt8 = 14
    public static let inboundFlowXonXoff: UInt8 = 15
    public static let inboundFlowHardware: UInt8 = 16
    /// Flow control by DCD (outbound), DTR (inbound), DSR (outbound): no termios setting does these.
    public static let flowDCD: UInt8 = 17
    public static let inboundFlowDTR: UInt8 = 18
    public static let flowDSR: UInt8 = 19
}

/// NOTIFY-MODEMSTATE's bits (RFC 2217): the lines in the high nibble, their changes in the low.
/// Threading: constants. Any thread.
public enum ComPortModemState {
    public static let carrierDetect: UInt8 = 0x80
    public static let ringIndicator: UInt8 = 0x40
    public static let dataSetReady: UInt8 = 0x20
    public static let clearToSend: UInt8 = 0x10
    public static let deltaCarrierDetect: UInt8 = 0x08
    public static let trailingEdgeRing: UInt8 = 0x04
    public static let deltaDataSetReady: UInt8 = 0x02
    public static let deltaClearToSend: UInt8 = 0x01

    /// The state byte for `lines` (high nibble), with the changes from `previous` (low nibble).
    public static func byte(lines: UInt8, previous: UInt8?) -> UInt8 {
        guard let previous else { return lines & 0xF0 }
        let changed = (lines ^ previous) & 0xF0
        var delta: UInt8 = 0
        if changed & carrierDetect != 0 { delta |= deltaCarrierDetect }
        // A ring's trailing edge: RI was on and is off now.
        if previous & ringIndicator != 0 && lines & ringIndicator == 0 { delta |= trailingEdgeRing }
        if changed & dataSetReady != 0 { delta |= deltaDataSetReady }
        if changed & clearToSend != 0 { delta |= deltaClearToSend }
        return (lines & 0xF0) | delta
    }
}
