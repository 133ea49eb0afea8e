import AccessoryConfig
import IOLoop
import Transports

/// Turns configuration values into transport values. Any thread (pure functions).
enum TransportMapping {
    static func serialSettings(_ s: SerialLineSettings) -> SerialSettings {
        SerialSettings(
            baudRate: UInt32(clamping: s.baud),
            dataBits: SerialSettings.DataBits(rawValue: s.dataBits) ?? .eight,
            parity: SerialSettings.Parity(rawValue: s.parity.rawValue) ?? .none,
            stopBits: SerialSettings.StopBits(rawValue: s.stopBits) ?? .one,
            flowControl: flow(s.flow),
            hangUpOnClose: s.hangupOnClose
        )
    }

    private static func flow(_ f: SerialLineSettings.FlowControl) -> SerialSettings.FlowControl {
        switch f {
        case .none: return .none
        case .rtscts: return .rtsCts
        case .xonxoff: return .xonXoff
        }
    }

    static func framer(_ f: FramingSettings) -> any Framer {
        let max = f.maxFrameBytes
        switch f.format {
        case .line(let delimiter, let terminator):
            // Modems frame every line as "\r\nTEXT\r\n": the empty lines between are not frames.
            return LineFramer(delimiter: delimiter, terminator: terminator, maxFrameSize: max, dropsEmptyLines: true)
        case .slip:
            return SLIPFramer(maxFrameSize: max)
        case .cobs:
            return COBSFramer(maxFrameSize: max)
        case .lengthPrefixed(let width, let endian):
            // A frame cut short by a lost byte would swallow the next ones; re-align after 100 ms
            // of silence mid-frame.
            return LengthPrefixedFramer(
                prefixSize: width,
                endianness: endian == .big ? .big : .little,
                maxFrameSize: max,
                resyncAfterIdle: .milliseconds(100)
            )
        case .idleGap(let gapMs):
            return IdleGapFramer(gap: .milliseconds(gapMs), maxFrameSize: max)
        }
    }
}
