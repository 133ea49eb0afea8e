/// The bytes the server sends a telnet client. Pure. Threading: a value. Any thread.
public enum TelnetEncoder {
    /// `bytes` as telnet data: every 255 doubled.
    public static func data(_ bytes: some Collection<UInt8>, into out: inout [UInt8]) {
        // The common case (no 255) is one copy.
        guard bytes.contains(Telnet.iac) else {
            out.append(contentsOf: bytes)
            return
        }
        out.reserveCapacity(out.count + bytes.count + 8)
        for byte in bytes {
            out.append(byte)
            if byte == Telnet.iac { out.append(Telnet.iac) }
        }
    }

    /// `IAC verb option`.
    public static func negotiation(_ verb: TelnetVerb, _ option: UInt8) -> [UInt8] {
        [Telnet.iac, verb.rawValue, option]
    }

    /// `IAC SB option payload IAC SE`, 255s in the payload doubled.
    public static func subnegotiation(_ option: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [Telnet.iac, Telnet.sb, option]
        data(payload, into: &out)
        out += [Telnet.iac, Telnet.se]
        return out
    }
}
