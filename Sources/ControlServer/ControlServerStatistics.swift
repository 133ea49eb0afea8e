import ControlProtocol
import Synchronization

/// A snapshot of the control server's counters, for `daemon.status`.
///
/// Threading: a value. Any thread.
public struct ControlServerStatistics: Sendable, Equatable, JSONEncodable {
    /// Clients connected now.
    public var clients = 0
    /// Connections accepted and served since start (not counting refused ones).
    public var acceptedTotal = 0
    /// Connections refused because ``ControlServerLimits/maxClients`` were connected.
    public var rejectedOverLimit = 0
    /// Clients disconnected for a request line over ``ControlServerLimits/maxLineBytes``.
    public var disconnectedLineTooLong = 0
    /// Clients disconnected because their unread output passed ``ControlServerLimits/maxOutboundBytes``.
    public var disconnectedSlowReader = 0
    /// Request lines decoded and handed to the handler.
    public var requestsDecoded = 0
    /// Request lines answered with an error because they were not acceptable requests.
    public var decodeErrors = 0
    /// `accept` failures (each one that paused accepting counts once).
    public var acceptErrors = 0
    /// Reads of a readable client put off to the next turn of the loop, because the turn's
    /// ``ControlServerLimits/inputBytesPerTurn`` were spent.
    public var inputDeferrals = 0

    public init() {}

    /// `{"clients":…,"accepted_total":…,…}` with snake_case names.
    public func encodeJSON(into buffer: inout [UInt8]) {
        let members: [(StaticString, Int)] = [
            ("clients", clients), ("accepted_total", acceptedTotal), ("rejected_over_limit", rejectedOverLimit),
            ("disconnected_line_too_long", disconnectedLineTooLong),
            ("disconnected_slow_reader", disconnectedSlowReader), ("requests_decoded", requestsDecoded),
            ("decode_errors", decodeErrors), ("accept_errors", acceptErrors), ("input_deferrals", inputDeferrals),
        ]
        buffer.append(UInt8(ascii: "{"))
        for (index, (name, value)) in members.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            buffer.append(UInt8(ascii: "\""))
            JSONOutput.appendLiteral(name, to: &buffer)
            JSONOutput.appendLiteral("\":", to: &buffer)
            JSONOutput.appendInteger(Int64(value), to: &buffer)
        }
        buffer.append(UInt8(ascii: "}"))
    }
}

/// The live counters behind ``ControlServerStatistics``: written on the control loop, read from
/// any thread.
///
/// Threading: any thread (atomics; relaxed, as each counter stands alone).
final class StatisticsCounters: Sendable {
    let clients = Atomic<Int>(0)
    let acceptedTotal = Atomic<Int>(0)
    let rejectedOverLimit = Atomic<Int>(0)
    let disconnectedLineTooLong = Atomic<Int>(0)
    let disconnectedSlowReader = Atomic<Int>(0)
    let requestsDecoded = Atomic<Int>(0)
    let decodeErrors = Atomic<Int>(0)
    let acceptErrors = Atomic<Int>(0)
    let inputDeferrals = Atomic<Int>(0)

    var snapshot: ControlServerStatistics {
        var s = ControlServerStatistics()
        s.clients = clients.load(ordering: .relaxed)
        s.acceptedTotal = acceptedTotal.load(ordering: .relaxed)
        s.rejectedOverLimit = rejectedOverLimit.load(ordering: .relaxed)
        s.disconnectedLineTooLong = disconnectedLineTooLong.load(ordering: .relaxed)
        s.disconnectedSlowReader = disconnectedSlowReader.load(ordering: .relaxed)
        s.requestsDecoded = requestsDecoded.load(ordering: .relaxed)
        s.decodeErrors = decodeErrors.load(ordering: .relaxed)
        s.acceptErrors = acceptErrors.load(ordering: .relaxed)
        s.inputDeferrals = inputDeferrals.load(ordering: .relaxed)
        return s
    }
}

extension Atomic<Int> {
    /// Adds one (relaxed).
    func increment() { add(1, ordering: .relaxed) }
}
