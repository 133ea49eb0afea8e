/// The telnet bytes (RFC 854) and options this server speaks: BINARY (RFC 856),
/// SUPPRESS-GO-AHEAD (RFC 858) and COM-PORT-OPTION (RFC 2217).
///
/// Threading: constants. Any thread.
public enum Telnet {
    /// "Interpret as command": starts every command; doubled to send the data byte 255.
    public static let iac: UInt8 = 255
    public static let dont: UInt8 = 254
    public static let `do`: UInt8 = 253
    public static let wont: UInt8 = 252
    public static let will: UInt8 = 251
    /// Subnegotiation begin and end.
    public static let sb: UInt8 = 250
    public static let se: UInt8 = 240

    /// The options this server takes part in; every other one is refused. Constants. Any thread.
    public enum Option {
        public static let binary: UInt8 = 0
        public static let suppressGoAhead: UInt8 = 3
        public static let comPort: UInt8 = 44
    }
}

/// A WILL/WONT/DO/DONT verb. A value. Any thread.
public enum TelnetVerb: UInt8, Sendable, Hashable {
    case will = 251
    case wont = 252
    case `do` = 253
    case dont = 254
}
