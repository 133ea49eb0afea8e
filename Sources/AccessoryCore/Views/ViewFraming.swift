import AccessoryConfig
import IOLoop
import Transports

/// How a view's bytes relate to the accessory's frames, both ways. Any thread (pure functions).
///
/// Toward the program, a frame is written as the accessory sent it: with line framing, followed
/// by the inbound `delimiter` (an NMEA sentence gets its `\r\n` back); with SLIP, COBS or a
/// length prefix, encoded again; with idle-gap framing, as it is.
///
/// From the program, bytes are cut as the accessory's own framing would cut what it sends:
/// with line framing, a program writes commands ended the way the accessory expects them (the
/// `terminator`, `\r` for a modem), but programs differ (`AT\r\n` from pyserial scripts, `\n`
/// from `echo`), so when the delimiter and terminator are made of CR and LF only, a line ends at
/// any CR or LF and empty lines are dropped. Other line endings are cut at the terminator (or the
/// delimiter when there is none). The accessory adds its terminator when it sends the frame.
enum ViewFraming {
    /// The framer that cuts a program's bytes into frames.
    static func inputFramer(_ settings: FramingSettings) -> any Framer {
        switch settings.format {
        case .line(let delimiter, let terminator):
            let crlf: Set<UInt8> = [0x0D, 0x0A]
            if (delimiter + terminator).allSatisfy(crlf.contains) {
                return LineEndFramer(maxFrameSize: settings.maxFrameBytes)
            }
            return LineFramer(
                delimiter: terminator.isEmpty ? delimiter : terminator,
                terminator: terminator,
                maxFrameSize: settings.maxFrameBytes,
                dropsEmptyLines: true
            )
        default:
            return TransportMapping.framer(settings)
        }
    }

    /// A frame from the accessory as the program reads it.
    static func output(_ frame: [UInt8], _ settings: FramingSettings) -> [UInt8] {
        switch settings.format {
        case .line(let delimiter, _):
            return frame + delimiter
        case .idleGap:
            return frame
        default:
            // A frame that came in this framing encodes again within its limit; should it not,
            // it is written as it is rather than lost.
            return (try? TransportMapping.framer(settings).encode(frame)) ?? frame
        }
    }
}

/// Lines ended by any CR or LF (`\r`, `\n`, `\r\n` alike); empty lines are not frames. A line
/// longer than ``maxFrameSize`` is reported once and skipped to its end.
///
/// Any thread (a value; one owner at a time).
struct LineEndFramer: Framer {
    let maxFrameSize: Int
    private var line: [UInt8] = []
    private var discarding = false

    init(maxFrameSize: Int) {
        self.maxFrameSize = maxFrameSize
    }

    mutating func ingest(_ bytes: [UInt8], at now: LoopInstant) -> [FramerEvent] {
        var events: [FramerEvent] = []
        for byte in bytes {
            if byte == 0x0D || byte == 0x0A {
                if !discarding && !line.isEmpty { events.append(.frame(line)) }
                line.removeAll(keepingCapacity: true)
                discarding = false
            } else if discarding {
                continue
            } else if line.count == maxFrameSize {
                events.append(.dropped(.frameTooLarge(limit: maxFrameSize, size: nil)))
                line.removeAll(keepingCapacity: true)
                discarding = true
            } else {
                line.append(byte)
            }
        }
        return events
    }

    func encode(_ payload: [UInt8]) throws(FramingError) -> [UInt8] { payload + [0x0A] }

    mutating func reset() {
        line = []
        discarding = false
    }
}
