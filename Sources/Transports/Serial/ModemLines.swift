import SystemCalls

/// RS-232 modem-control lines. DTR and RTS are outputs (set them); CTS, DSR, CD and RI are inputs
/// (read them). Any thread (a value).
public struct ModemLines: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: CInt
    public init(rawValue: CInt) { self.rawValue = rawValue }

    public static let dtr = ModemLines(rawValue: Termios.ModemLines.dtr.rawValue)
    public static let rts = ModemLines(rawValue: Termios.ModemLines.rts.rawValue)
    public static let cts = ModemLines(rawValue: Termios.ModemLines.cts.rawValue)
    public static let dsr = ModemLines(rawValue: Termios.ModemLines.dsr.rawValue)
    public static let cd = ModemLines(rawValue: Termios.ModemLines.cd.rawValue)
    public static let ri = ModemLines(rawValue: Termios.ModemLines.ri.rawValue)

    public var description: String {
        let names: [(ModemLines, String)] = [
            (.dtr, "DTR"), (.rts, "RTS"), (.cts, "CTS"), (.dsr, "DSR"), (.cd, "CD"), (.ri, "RI"),
        ]
        return "[" + names.filter { contains($0.0) }.map(\.1).joined(separator: ",") + "]"
    }
}

/// The outcome of a line-control request that the device may not support (ptys and some USB
/// adapters have no modem lines: `ENOTTY`). "Unsupported" is an answer, not a failure.
/// Any thread (a value).
public enum ControlOutcome: Sendable, Equatable {
    case done
    case unsupported
}

/// The modem lines as read, or that the device has none. Any thread (a value).
public enum ModemLineStatus: Sendable, Equatable {
    case lines(ModemLines)
    case unsupported
}
