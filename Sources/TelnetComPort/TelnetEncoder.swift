/// The bytes the server sends a telnet client. Pure. Threading: a value. Any thread.
///
/// Concrete, not generic over collections: this module is compiled apart from its callers, so a
/// generic body would run unspecialized, through witness tables for every byte.
public enum TelnetEncoder {
    /// `bytes` as telnet data: every 255 doubled. Without a 255 (the common case) it is `bytes`
    /// itself, not copied.
    public static func escaped(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(Telnet.iac) else { return bytes }
        var out: [UInt8] = []
        data(bytes[...], into: &out)
        return out
    }

    /// `bytes` as telnet data, appended to `out`: every 255 doubled.
    public static func data(_ bytes: ArraySlice<UInt8>, into out: inout [UInt8]) {
        var rest = bytes
        // Runs between 255s are copied whole; only the 255s are added one by one.
        while let iac = rest.firstIndex(of: Telnet.iac) {
            out.append(contentsOf: rest[...iac])
            out.append(Telnet.iac)
            rest = rest[(iac + 1)...]
        }
        out.append(contentsOf: rest)
    }

    /// `IAC verb option`.
    public static func negotiation(_ verb: TelnetVerb, _ option: UInt8) -> [UInt8] {
        [Telnet.iac, verb.rawValue, option]
    }

    /// `IAC SB option payload IAC SE`, 255s in the payload doubled.
    public static func subnegotiation(_ option: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [Telnet.iac, Telnet.sb, option]
        data(payload[...], into: &out)
        out += [Telnet.iac, Telnet.se]
        return out
    }
}
