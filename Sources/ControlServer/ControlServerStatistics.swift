import ControlProtocol
import JSONCodec
import Synchronization

/// A snapshot of the control server's counters, for `daemon.status`.
///
/// Threading: a value. Any thread.
package struct ControlServerStatistics: Sendable, Equatable, JSONEncodable {
    /// Clients connected now.
    package var clients = 0
    /// Connections accepted and served since start (not counting refused ones).
    package var acceptedTotal = 0
    /// Connections refused because ``ControlServerLimits/maxClients`` were connected.
    package var rejectedOverLimit = 0
    /// Clients disconnected for a request line over ``ControlServerLimits/maxLineBytes``.
    package var disconnectedLineTooLong = 0
    /// Clients disconnected because their unread output passed ``ControlServerLimits/maxOutboundBytes``.
    package var disconnectedSlowReader = 0
    /// Clients disconnected for not completing a request line within
    /// ``ControlServerLimits/idleConnectionTimeout`` of connecting.
    package var disconnectedIdle = 0
    /// Connections accepted beyond ``ControlServerLimits/maxClients``, in the reserve kept for
    /// root and the daemon's own user (``ControlServerLimits/reservedConnections``).
    package var acceptedInReserve = 0
    /// Batches refused whole before any element ran: their answers could not fit in
    /// ``ControlServerLimits/maxOutboundBytes``, or they had too many waiting.
    package var batchesRefused = 0
    /// Replies replaced by an error because they did not fit in
    /// ``ControlServerLimits/maxOutboundBytes`` (alone, or beside the rest of their batch).
    package var repliesTooLarge = 0
    /// Request lines decoded and handed to the handler.
    package var requestsDecoded = 0
    /// Request lines answered with an error because they were not acceptable requests.
    package var decodeErrors = 0
    /// `accept` failures (each one that paused accepting counts once).
    package var acceptErrors = 0
    /// Reads of a readable client put off to the next turn of the loop, because the turn's
    /// ``ControlServerLimits/inputBytesPerTurn`` were spent.
    package var inputDeferrals = 0

    package init() {}

    /// `{"clients":…,"accepted_total":…,…}` with snake_case names, written by ControlProtocol's
    /// object encoder.
    package func encodeJSON(into buffer: inout [UInt8]) {
        let object: JSONObject = [
            "clients": .int(clients), "accepted_total": .int(acceptedTotal),
            "rejected_over_limit": .int(rejectedOverLimit), "disconnected_line_too_long": .int(disconnectedLineTooLong),
            "disconnected_slow_reader": .int(disconnectedSlowReader), "requests_decoded": .int(requestsDecoded),
            "decode_errors": .int(decodeErrors), "accept_errors": .int(acceptErrors),
            "input_deferrals": .int(inputDeferrals), "disconnected_idle": .int(disconnectedIdle),
            "accepted_in_reserve": .int(acceptedInReserve), "batches_refused": .int(batchesRefused),
            "replies_too_large": .int(repliesTooLarge),
        ]
        object.encodeJSON(into: &buffer)
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
    let disconnectedIdle = Atomic<Int>(0)
    let acceptedInReserve = Atomic<Int>(0)
    let batchesRefused = Atomic<Int>(0)
    let repliesTooLarge = Atomic<Int>(0)
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
        s.disconnectedIdle = disconnectedIdle.load(ordering: .relaxed)
        s.acceptedInReserve = acceptedInReserve.load(ordering: .relaxed)
        s.batchesRefused = batchesRefused.load(ordering: .relaxed)
        s.repliesTooLarge = repliesTooLarge.load(ordering: .relaxed)
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
