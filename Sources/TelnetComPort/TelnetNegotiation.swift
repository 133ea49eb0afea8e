/// The server's side of telnet option negotiation (RFC 854's rules, without loops): BINARY,
/// SUPPRESS-GO-AHEAD and COM-PORT-OPTION are agreed to in both directions, every other option is
/// refused. An answer is sent only when a state changes, and never to the acknowledgement of
/// the server's own request, so two ends that follow the rules cannot ping-pong.
///
/// Pure: returns the bytes to send. Threading: a value. Any thread.
public struct TelnetNegotiation: Sendable {
    /// One side of one option: enabled or not, and whether the server asked and awaits the answer.
    private struct Side: Sendable {
        var enabled = false
        var requested = false
    }

    private static let supported: Set<UInt8> = [
        Telnet.Option.binary, Telnet.Option.suppressGoAhead, Telnet.Option.comPort,
    ]
    /// The server's own side of each option ("I will"), by option.
    private var ours: [UInt8: Side] = [:]
    /// The client's side of each option ("you will"), by option.
    private var theirs: [UInt8: Side] = [:]
    /// How many requests for options outside ``supported`` were refused.
    public private(set) var refusals = 0

    public init() {}

    /// What the server says first: it will and wants BINARY and SUPPRESS-GO-AHEAD both ways
    /// (COM-PORT-OPTION is the client's to offer, RFC 2217).
    public mutating func start() -> [UInt8] {
        var out: [UInt8] = []
        for option in [Telnet.Option.binary, Telnet.Option.suppressGoAhead] {
            ours[option, default: Side()].requested = true
            theirs[option, default: Side()].requested = true
            out += TelnetEncoder.negotiation(.will, option)
            out += TelnetEncoder.negotiation(.do, option)
        }
        return out
    }

    /// Whether `option` is enabled on the server's side (`ours`) or the client's.
    public func isEnabled(_ option: UInt8, ours mine: Bool) -> Bool {
        (mine ? ours[option] : theirs[option])?.enabled ?? false
    }

    /// Whether COM-PORT-OPTION was agreed in either direction (clients differ in which they offer).
    public var comPortAgreed: Bool {
        isEnabled(Telnet.Option.comPort, ours: true) || isEnabled(Telnet.Option.comPort, ours: false)
    }

    /// The answer to the client's `verb` for `option` (empty when none is due).
    public mutating func receive(_ verb: TelnetVerb, option: UInt8) -> [UInt8] {
        let supported = Self.supported.contains(option)
        switch verb {
        case .do, .dont:
            return Self.answer(
                &ours[option, default: Side()],
                enable: verb == .do,
                supported: supported,
                refusals: &refusals,
                yes: .will,
                no: .wont,
                option
            )
        case .will, .wont:
            return Self.answer(
                &theirs[option, default: Side()],
                enable: verb == .will,
                supported: supported,
                refusals: &refusals,
                yes: .do,
                no: .dont,
                option
            )
        }
    }

    private static func answer(
        _ side: inout Side,
        enable: Bool,
        supported: Bool,
        refusals: inout Int,
        yes: TelnetVerb,
        no: TelnetVerb,
        _ option: UInt8
    ) -> [UInt8] {
        let wasRequested = side.requested
        side.requested = false
        if enable {
            guard supported else {
                refusals += 1
                return TelnetEncoder.negotiation(no, option)
            }
            guard !side.enabled else { return [] }
            side.enabled = true
            return wasRequested ? [] : TelnetEncoder.negotiation(yes, option)
        }
        guard side.enabled else { return [] }
        side.enabled = false
        return wasRequested ? [] : TelnetEncoder.negotiation(no, option)
    }
}
