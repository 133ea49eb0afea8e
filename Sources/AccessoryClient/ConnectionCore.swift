import ControlProtocol
import IOLoop
import SystemCalls

/// One connection's machinery behind ``AccessoryConnection``: the table of calls waiting for
/// their responses, the outgoing bytes, and (on the loop thread) the socket itself.
///
/// Threading: the methods in this file are safe from any thread (their state is behind one
/// lock). The socket, its source and the receive state are touched only on `loop`'s thread (see
/// ConnectionCore+Loop.swift). Continuations are always resumed outside the lock.
final class ConnectionCore: @unchecked Sendable {  // @unchecked: `shared` is Locked; the rest is loop-only.
    let loop: IOLoop
    /// The socket's path, for messages.
    let path: String
    let shared = Locked(SharedState())
    let events: AsyncStream<DeviceEvent>.Continuation
    /// The `ssh` child behind a remote connection: when the socket ends, its exit says why.
    let tunnel: SSHTunnel?
    /// Whether tearing down finishes `events` (a connection that reconnects keeps them going
    /// across sockets).
    let finishesEvents: Bool
    /// Told once when the daemon went away from this socket (not after a close).
    let onLost: (@Sendable (ConnectionCore) -> Void)?

    // Loop thread only (ConnectionCore+Loop.swift).
    var source: FDSource?
    var unsent: [UInt8] = []
    var splitter = LineSplitter(limit: ConnectionCore.maxLineLength)
    var readBuffer = [UInt8](repeating: 0, count: 65_536)
    var tornDown = false
    /// The socket of a remote connection ended: waiting for ssh to say why.
    var awaitingTunnel = false

    /// The longest line accepted from the daemon (a `read` of many frames can be long).
    static let maxLineLength = 64 << 20

    init(
        loop: IOLoop,
        path: String,
        events: AsyncStream<DeviceEvent>.Continuation,
        tunnel: SSHTunnel? = nil,
        finishesEvents: Bool = true,
        onLost: (@Sendable (ConnectionCore) -> Void)? = nil
    ) {
        self.loop = loop
        self.path = path
        self.events = events
        self.tunnel = tunnel
        self.finishesEvents = finishesEvents
        self.onLost = onLost
    }

    /// Reserves an id, sends the line built for it and waits for its response; cancelling the
    /// task sends a `cancel` for the id. Any thread.
    func exchange(id: RequestID?, line: (RequestID) -> [UInt8]) async throws(ClientError) -> Response {
        let id = try reserve(id)
        let bytes = line(id)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { self.startWaiting(id: id, line: bytes, continuation: $0) }
        } onCancel: {
            self.cancel(id)
        }
        return try result.get()
    }

    /// Takes `id` (or a fresh one) for a request about to be sent. Any thread.
    func reserve(_ id: RequestID?) throws(ClientError) -> RequestID {
        try shared.withLock { (state) throws(ClientError) -> RequestID in
            if let ended = state.ended { throw ended }
            let id = id ?? state.allocateID()
            guard state.entries[id] == nil else {
                throw .protocolError("request id \(id) is already waiting for a response on this connection")
            }
            state.entries[id] = .reserved
            return id
        }
    }

    /// A fresh request id, not reserved. Any thread.
    func allocateID() -> RequestID { shared.withLock { $0.allocateID() } }

    /// Starts waiting for the response to `id` (reserved) and sends `line`, unless the call was
    /// cancelled or the connection ended meanwhile. Any thread.
    func startWaiting(id: RequestID, line: [UInt8], continuation: ResponseContinuation) {
        let failure: ClientError? = shared.withLock { state in
            switch state.entries[id] {
            case .reserved?:
                state.entries[id] = .waiting(continuation, cancelSent: false)
                // Queued under the lock, so that a `cancel` for this id is always sent after it.
                enqueue(line, &state)
                return nil
            case .cancelledEarly?:
                state.entries[id] = nil
                return .rpc(RPCError(.cancelled, "cancelled before it was sent"))
            default:
                return state.ended ?? .disconnected
            }
        }
        if let failure { continuation.resume(returning: .failure(failure)) }
    }

    /// The caller's task was cancelled: asks the daemon to cancel `id` (once), or makes sure an
    /// unsent request is never sent. The caller keeps waiting for the daemon's answer. Any thread.
    func cancel(_ id: RequestID) {
        shared.withLock { state in
            switch state.entries[id] {
            case .reserved?:
                state.entries[id] = .cancelledEarly
            case .waiting(let continuation, cancelSent: false)?:
                state.entries[id] = .waiting(continuation, cancelSent: true)
                let cancelID = state.allocateID()
                state.entries[cancelID] = .ignored
                enqueue(Request(id: cancelID, method: .cancel(CancelParams(id: id))).line, &state)
            default:
                break
            }
        }
    }

    /// Sends `line` as is, waiting for nothing. Any thread.
    func sendRaw(_ line: [UInt8]) throws(ClientError) {
        try shared.withLock { (state) throws(ClientError) in
            if let ended = state.ended { throw ended }
            enqueue(line, &state)
        }
    }

    /// Sends `line` and waits for the next response whose id is `null`. Any thread.
    func sendRawAwaitingNullID(_ line: [UInt8], continuation: ResponseContinuation) {
        let failure: ClientError? = shared.withLock { state in
            if let ended = state.ended { return ended }
            state.nullIDWaiters.append(continuation)
            enqueue(line, &state)
            return nil
        }
        if let failure { continuation.resume(returning: .failure(failure)) }
    }

    /// Ends the connection (if not already ended): every waiting call fails with `inFlight`
    /// (else `error`), later ones with `error`; the socket is closed on the loop and `events`
    /// finishes (``finishesEvents``). Any thread.
    func end(with error: ClientError, inFlight: ClientError? = nil) {
        let (reason, waiting) = shared.withLock { $0.end(with: error) }
        for continuation in waiting { continuation.resume(returning: .failure(inFlight ?? reason)) }
        loop.execute { self.tearDown() }
    }

    /// Whether the connection has not ended. Any thread.
    var isOpen: Bool { shared.withLock { $0.ended == nil } }

    /// Appends to the outgoing bytes and queues one flush on the loop. Called under the lock.
    private func enqueue(_ line: [UInt8], _ state: inout SharedState) {
        state.outbound.append(contentsOf: line)
        if !state.flushQueued {
            state.flushQueued = true
            loop.perform { self.flush() }
        }
    }
}
