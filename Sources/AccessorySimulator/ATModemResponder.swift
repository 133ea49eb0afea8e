/// The `at-modem` personality: a small Hayes command set.
///
/// Commands end with `\r` (also `\n` or `\r\n`) and are case-insensitive. Every response line
/// is framed as `\r\n<line>\r\n` and each command ends with a final result (`OK`, `ERROR` or
/// `+CME ERROR: <n>`):
///
/// | command | response |
/// |---|---|
/// | `AT`, `ATZ`, `ATE0`, `ATE1`, `AT+CMEE=<n>`, `AT+CMGF=<n>` | `OK` (`ATE1` turns command echo on, `ATE0`/`ATZ` off) |
/// | `ATI` | four identity lines, `OK` |
/// | `AT+CGMI` / `AT+CGMM` / `AT+CGMR` / `AT+CGSN` | manufacturer / model / revision / serial, `OK` |
/// | `AT+CSQ` | `+CSQ: 23,99`, `OK` |
/// | `AT+CPIN?` | `+CPIN: READY`, `OK` |
/// | `AT+CMGR=<i>` | a stored message (header and text lines), `OK`; an index with no message → `+CME ERROR: 321` |
/// | anything else | `ERROR` |
///
/// One message is stored at start. When an unsolicited interval is set, the ticks alternate
/// `RING` and `+CMTI: "SM",<i>`, each `+CMTI` announcing a newly stored message `<i>`.
///
/// Owned by one accessory; loop thread only.
struct ATModemResponder: Responder {
    static let identity = ["AccessorySim", "SIM-AT1", "1.0.0", "490154203237518"]

    private var splitter: LineSplitter
    private var echo = false
    private var storedMessages = 1
    private var ticks = 0
    let tickInterval: Duration?
    let structuralBytes: Set<UInt8> = [0x0D, 0x0A]

    init(unsolicitedInterval: Duration?, maxLength: Int) {
        splitter = LineSplitter(terminator: .any, maxLength: maxLength)
        tickInterval = unsolicitedInterval
    }

    mutating func receive(_ bytes: ArraySlice<UInt8>) -> [Output] {
        var out: [Output] = []
        for line in splitter.feed(bytes) {
            let text = String(decoding: line.content, as: UTF8.self).trimmingWhitespace()
            if text.isEmpty { continue }
            if echo { out.append(.unsolicited(line.bytes)) }
            out.append(.reply(Self.frame(respond(to: text))))
        }
        return out
    }

    mutating func tick() -> [Output] {
        ticks += 1
        if ticks % 2 == 1 { return [.unsolicited(Self.frame(["RING"]))] }
        storedMessages += 1
        return [.unsolicited(Self.frame(["+CMTI: \"SM\",\(storedMessages)"]))]
    }

    /// The response lines to one command, ending with the final result.
    mutating func respond(to command: String) -> [String] {
        let c = command.uppercased()
        switch c {
        case "AT", "ATZ", "ATE0", "ATE", "ATE1":
            if c != "AT" { echo = c == "ATE1" }
            return ["OK"]
        case "ATI", "ATI0":
            let id = Self.identity
            return ["Manufacturer: \(id[0])", "Model: \(id[1])", "Revision: \(id[2])", "IMEI: \(id[3])", "OK"]
        case "AT+CGMI": return [Self.identity[0], "OK"]
        case "AT+CGMM": return [Self.identity[1], "OK"]
        case "AT+CGMR": return [Self.identity[2], "OK"]
        case "AT+CGSN": return [Self.identity[3], "OK"]
        case "AT+CSQ": return ["+CSQ: 23,99", "OK"]
        case "AT+CPIN?": return ["+CPIN: READY", "OK"]
        default:
            break
        }
        if let n = Self.argument(of: "AT+CMEE=", in: c), (0...2).contains(n) { return ["OK"] }
        if let n = Self.argument(of: "AT+CMGF=", in: c), (0...1).contains(n) { return ["OK"] }
        if let i = Self.argument(of: "AT+CMGR=", in: c) {
            guard (1...storedMessages).contains(i) else { return ["+CME ERROR: 321"] }
            return [
                "+CMGR: \"REC UNREAD\",\"+15550100\",,\"24/06/01,12:00:00+00\"",
                "Message \(i) from AccessorySim",
                "OK",
            ]
        }
        return ["ERROR"]
    }

    /// The integer after `prefix`, if `command` is exactly `prefix` followed by digits.
    static func argument(of prefix: String, in command: String) -> Int? {
        guard command.hasPrefix(prefix) else { return nil }
        let rest = command.dropFirst(prefix.count)
        guard !rest.isEmpty, rest.count <= 9, rest.allSatisfy(\.isASCIIDigit) else { return nil }
        return Int(rest)
    }

    /// Frames each line as `\r\n<line>\r\n`.
    static func frame(_ lines: [String]) -> [UInt8] {
        var out: [UInt8] = []
        for line in lines {
            out.append(contentsOf: [0x0D, 0x0A])
            out.append(contentsOf: line.utf8)
            out.append(contentsOf: [0x0D, 0x0A])
        }
        return out
    }
}
