/// A telnet COM-PORT-OPTION server's view of one client's stream: the parser, the option
/// negotiation and the command decoding together. Fed what the client sent, it answers the
/// negotiations itself and hands the caller data for the line and COM-PORT commands, in the order
/// they came (a BREAK between two writes stays between them).
///
/// Pure: no I/O. Threading: a value. Any thread.
public struct TelnetServerStream: Sendable {
    /// What the caller acts on, in order. A value. Any thread.
    public enum Input: Sendable, Equatable {
        case data([UInt8])
        case comPort(ComPortRequest)
    }

    private var parser: TelnetParser
    public private(set) var negotiation = TelnetNegotiation()
    /// Subnegotiations ignored: another option's, or a COM-PORT command that is not one.
    public private(set) var ignoredSubnegotiations = 0

    /// `maxSubnegotiation`: the longest subnegotiation taken (``TelnetParser``).
    public init(maxSubnegotiation: Int = TelnetParser.maxSubnegotiation) {
        parser = TelnetParser(limit: maxSubnegotiation)
    }

    /// The server's opening negotiation.
    public mutating func start() -> [UInt8] { negotiation.start() }

    /// What `bytes` hold for the caller; `reply` gets the negotiation answers due. Throws when
    /// the stream is no telnet stream (the connection is then closed).
    public mutating func receive(_ bytes: [UInt8], reply: inout [UInt8]) throws(TelnetProtocolError) -> [Input] {
        try receive(bytes[...], reply: &reply)
    }

    /// The same for a slice (concrete, not generic: see ``TelnetParser``).
    public mutating func receive(
        _ bytes: ArraySlice<UInt8>,
        reply: inout [UInt8]
    ) throws(TelnetProtocolError) -> [Input] {
        var inputs: [Input] = []
        for event in try parser.feed(bytes) {
            switch event {
            case .data(let data):
                inputs.append(.data(data))
            case .negotiation(let verb, let option):
                reply += negotiation.receive(verb, option: option)
            case .subnegotiation(let option, let payload):
                // Taken even before the option is agreed: some clients send their settings with
                // their WILL, and the commands mean the same either way.
                guard option == Telnet.Option.comPort, let request = ComPortRequest(payload: payload)
                else {
                    ignoredSubnegotiations += 1
                    continue
                }
                inputs.append(.comPort(request))
            }
        }
        return inputs
    }
}
