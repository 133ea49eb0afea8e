import TelnetComPort
import Transports

/// What an RFC 2217 client asked of the line: the settings it wants for its session, the
/// break condition, DTR and RTS as last set, and its notification masks. The mapping between
/// RFC 2217's codes and the line's settings is here too.
///
/// Threading: a value. Device loop only (the connection's).
struct ComPortState: Sendable, Equatable {
    /// The settings for the session (the configured ones until the client changes them).
    var line = SerialSettings()
    /// Whether the client changed `line` (then it is applied at each session start and undone at
    /// the end).
    var lineChanged = false
    var breakOn = false
    var dtr = true
    var rts = true
    /// RFC 2217's defaults: no line-state notifications, every modem line.
    var lineStateMask: UInt8 = 0
    var modemStateMask: UInt8 = 0xFF

    /// SET-PARITY's code for `parity`, and back.
    static func parityCode(_ parity: SerialSettings.Parity) -> UInt8 {
        switch parity {
        case .none: 1
        case .odd: 2
        case .even: 3
        case .mark: 4
        case .space: 5
        }
    }

    static func parity(code: UInt8) -> SerialSettings.Parity? {
        [1: .none, 2: .odd, 3: .even, 4: .mark, 5: .space][code]
    }

    /// SET-STOPSIZE's code (1.5, code 3, is not offered by Linux's termios).
    static func stopCode(_ stop: SerialSettings.StopBits) -> UInt8 { stop == .one ? 1 : 2 }

    static func stopBits(code: UInt8) -> SerialSettings.StopBits? {
        [1: .one, 2: .two][code]
    }

    /// SET-CONTROL's outbound flow-control code.
    static func flowCode(_ flow: SerialSettings.FlowControl) -> UInt8 {
        switch flow {
        case .none: ComPortControl.flowNone
        case .xonXoff: ComPortControl.flowXonXoff
        case .rtsCts: ComPortControl.flowHardware
        }
    }

    static func flow(code: UInt8) -> SerialSettings.FlowControl? {
        [
            ComPortControl.flowNone: .none, ComPortControl.flowXonXoff: .xonXoff,
            ComPortControl.flowHardware: .rtsCts,
        ][code]
    }

    /// SET-CONTROL's inbound flow-control code for `flow` (the same termios setting), and back.
    static func inboundFlowCode(_ flow: SerialSettings.FlowControl) -> UInt8 {
        flowCode(flow) + ComPortControl.requestInboundFlow
    }

    static func flow(inboundCode code: UInt8) -> SerialSettings.FlowControl? {
        code > ComPortControl.requestInboundFlow ? flow(code: code - ComPortControl.requestInboundFlow) : nil
    }

    /// NOTIFY-MODEMSTATE's line bits for `lines`.
    static func modemBits(_ lines: ModemLines) -> UInt8 {
        var bits: UInt8 = 0
        if lines.contains(.cd) { bits |= ComPortModemState.carrierDetect }
        if lines.contains(.ri) { bits |= ComPortModemState.ringIndicator }
        if lines.contains(.dsr) { bits |= ComPortModemState.dataSetReady }
        if lines.contains(.cts) { bits |= ComPortModemState.clearToSend }
        return bits
    }
}
