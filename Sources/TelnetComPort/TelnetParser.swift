/// What the byte stream from a telnet client holds, in order. A value. Any thread.
public enum TelnetEvent: Sendable, Equatable {
    /// Data bytes for the line, a doubled IAC already made one 255.
    case data([UInt8])
    /// An option negotiation: WILL/WONT/DO/DONT and the option.
    case negotiation(TelnetVerb, option: UInt8)
    /// A complete subnegotiation `IAC SB option payload IAC SE`, payload undoubled.
    case subnegotiation(option: UInt8, payload: [UInt8])
}

/// Why a client's stream was given up: the connection is closed with this said in the log.
/// A value. Any thread.
public enum TelnetProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A subnegotiation grew past the limit without its `IAC SE`.
    case subnegotiationTooLong(limit: Int)
    /// `IAC` followed by a byte that is no command inside a subnegotiation.
    case malformedSubnegotiation(UInt8)

    public var description: String {
        switch self {
        case .subnegotiationTooLong(let limit):
            "a telnet subnegotiation longer than \(limit) bytes"
        case .malformedSubnegotiation(let byte):
            "IAC \(byte) inside a telnet subnegotiation (only IAC IAC and IAC SE may appear there)"
        }
    }
}

/// Cuts the bytes a telnet client sends into data, negotiations and subnegotiations. Fed any
/// split of the stream, it gives the same events (a command cut between two reads is finished by
/// the next). Holds at most ``limit`` bytes between calls: a subnegotiation that
/// never ends is an error, not a growing buffer. Commands other than negotiations and
/// subnegotiations (NOP, AYT, GA, …) carry nothing this server acts on and are dropped.
///
/// Pure: no I/O. Threading: a value. Any thread.
public struct TelnetParser: Sendable {
    /// RFC 2217's longest subnegotiation is a signature; 256 bytes is room for any honest one.
    public static let maxSubnegotiation = 256
    /// The longest subnegotiation this parser takes.
    public let limit: Int

    private enum State: Sendable {
        case data
        case command
        case option(TelnetVerb)
        case subnegotiationOption
        case subnegotiation(option: UInt8)
        case subnegotiationCommand(option: UInt8)
    }

    private var state = State.data
    private var payload: [UInt8] = []

    public init(limit: Int = TelnetParser.maxSubnegotiation) { self.limit = limit }

    /// The events in `bytes`, in order; throws once the stream cannot be a telnet stream (the
    /// parser is then of no further use).
    public mutating func feed(_ bytes: [UInt8]) throws(TelnetProtocolError) -> [TelnetEvent] {
        try feed(bytes[...])
    }

    /// The events in `bytes`, in order, as the array form above.
    ///
    /// Concrete, not generic over `Sequence`: this module is compiled apart from its callers, so
    /// a generic body runs unspecialized, through witness tables for every byte. Data between
    /// commands is found with one scan for the next IAC and copied as a run, not byte by byte.
    public mutating func feed(_ bytes: ArraySlice<UInt8>) throws(TelnetProtocolError) -> [TelnetEvent] {
        var events: [TelnetEvent] = []
        var data: [UInt8] = []
        func flush() {
            if !data.isEmpty {
                events.append(.data(data))
                data = []
            }
        }
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if case .data = state {
                let end = bytes[index...].firstIndex(of: Telnet.iac) ?? bytes.endIndex
                if data.isEmpty && index == bytes.startIndex && end == bytes.endIndex {
                    data = Array(bytes)  // The common case: a read of data only, one copy.
                } else {
                    data.append(contentsOf: bytes[index..<end])
                }
                index = end
                if index < bytes.endIndex {
                    state = .command
                    index += 1
                }
                continue
            }
            let byte = bytes[index]
            index += 1
            switch state {
            case .data:
                break  // Taken above.
            case .command:
                state = .data
                switch byte {
                case Telnet.iac: data.append(byte)
                case Telnet.sb: state = .subnegotiationOption
                default:
                    if let verb = TelnetVerb(rawValue: byte) { state = .option(verb) }
                }
            case .option(let verb):
                flush()
                events.append(.negotiation(verb, option: byte))
                state = .data
            case .subnegotiationOption:
                payload.removeAll(keepingCapacity: true)
                state = .subnegotiation(option: byte)
            case .subnegotiation(let option):
                if byte == Telnet.iac {
                    state = .subnegotiationCommand(option: option)
                } else {
                    try append(byte)
                }
            case .subnegotiationCommand(let option):
                switch byte {
                case Telnet.iac:
                    try append(byte)
                    state = .subnegotiation(option: option)
                case Telnet.se:
                    flush()
                    events.append(.subnegotiation(option: option, payload: payload))
                    payload.removeAll()
                    state = .data
                default:
                    throw .malformedSubnegotiation(byte)
                }
            }
        }
        flush()
        return events
    }

    private mutating func append(_ byte: UInt8) throws(TelnetProtocolError) {
        guard payload.count < limit else {
            throw .subnegotiationTooLong(limit: limit)
        }
        payload.append(byte)
    }
}
