import ControlProtocol

/// A caller waiting for one response: resumed exactly once, with the response or the error that
/// ended the wait.
typealias ResponseContinuation = CheckedContinuation<Result<Response, ClientError>, Never>

/// Where one request id stands.
///
/// Threading: a value, kept inside ``ConnectionCore``'s lock.
enum PendingEntry {
    /// The id is taken; the caller is about to start waiting and send the request.
    case reserved
    /// The caller's task was cancelled before the request was sent; it will not be sent.
    case cancelledEarly
    /// The request is sent (or queued to be); `cancelSent` once a `cancel` for it went out.
    case waiting(ResponseContinuation, cancelSent: Bool)
    /// The library's own `cancel` requests: their answers are dropped.
    case ignored
}

/// Everything callers and the loop thread share, under one lock.
///
/// Threading: a value, only touched inside ``ConnectionCore``'s lock.
struct SharedState {
    /// The next id ``ConnectionCore/reserve(_:)`` hands out.
    var nextID: Int64 = 1
    var entries: [RequestID: PendingEntry] = [:]
    /// Callers of `send(rawLine:awaitingResponseTo: nil)`, answered in order by responses whose
    /// id is `null` (the daemon's answer to a line whose id it could not read).
    var nullIDWaiters: [ResponseContinuation] = []
    /// Request bytes not yet taken by the loop thread.
    var outbound: [UInt8] = []
    /// Whether a flush is already queued on the loop.
    var flushQueued = false
    /// Set once the connection has ended; every later call fails with it.
    var ended: ClientError?
    /// Notifications dropped because `events` was not read fast enough.
    var droppedEvents = 0
    /// Responses whose id matched no call (answers to `send(rawLine:)` lines, late answers).
    var unmatchedResponses = 0

    mutating func allocateID() -> RequestID {
        defer { nextID += 1 }
        return .int(nextID)
    }

    /// Ends the connection with `error` (unless already ended) and takes every waiting caller.
    mutating func end(with error: ClientError) -> (ClientError, [ResponseContinuation]) {
        if ended == nil { ended = error }
        var waiting = nullIDWaiters
        nullIDWaiters = []
        for case .waiting(let continuation, _) in entries.values { waiting.append(continuation) }
        entries = [:]
        outbound = []
        return (ended ?? error, waiting)
    }
}
