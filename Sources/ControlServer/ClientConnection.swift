import ControlProtocol
import IOLoop
import JSONCodec
import Synchronization
import SystemCalls

/// One client on the control socket: its identity and credentials, and the way to answer it.
///
/// The senders (``respond(id:result:)``, ``respond(id:error:)``, ``notify(method:params:)``,
/// ``send(line:)``, ``disconnect(_:)``) may be called from any thread: a line is encoded on the
/// caller's thread and its bytes travel to the control loop in one `perform` (none when already
/// on it), where they are queued and written without further copying; or, when nothing is
/// queued, written on the caller's thread at once (see ``ConnectionOutput``). After the connection has
/// closed they do nothing. Lines sent from one thread arrive in the order sent.
///
/// Threading: the senders, ``id``, ``credentials``, ``isOpen`` and ``outboundBytes`` are any
/// thread; everything else is control loop only.
package final class ClientConnection: @unchecked Sendable {  // @unchecked: vars are loop-confined or atomic.
    /// Unique among this server's connections (increasing, never reused). Any thread.
    package let id: UInt64
    /// Who connected (`SO_PEERCRED` at accept). Any thread.
    package let credentials: ClientCredentials

    let server: ControlServer
    let loop: IOLoop
    let maxOutboundBytes: Int

    // MARK: any thread

    /// Where the connection is in its life (``ConnectionState``, which lists the moves): what its
    /// bytes are read as, whether senders deliver, how it ends.
    let state = ConnectionStateWord()
    /// Bytes the connection holds for its client (``ControlServerLimits/maxOutboundBytes``): handed
    /// to senders and not yet written, counting those still in a perform block, plus the answers
    /// held in ``routes`` for batches not yet complete.
    let queuedBytes = Atomic<Int>(0)
    /// The outbound queue, the socket and the requests owed an answer: whoever writes to the
    /// socket (the control loop, or a sender's own thread) does so under this lock.
    let output = Locked(ConnectionOutput())
    /// Where the answers to batch elements and notifications go (``ReplyRoutes``).
    let routes = Locked(ReplyRoutes())
    /// Answers ``routes`` still waits for: while zero, a response skips the routes' lock.
    let routedCount = Atomic<Int>(0)

    // MARK: control loop only

    /// The `attach` request whose answer ``state`` awaits (`awaitingAttach`).
    var awaitedAttach: RequestID?
    /// Where the client's bytes go while ``state`` is `raw`: called on the control loop thread,
    /// in order.
    var rawSink: (@Sendable ([UInt8]) -> Void)?
    /// What a draining or flushing connection closes with once its lines are written.
    var closingReason: CloseReason?

    var source: FDSource?
    var lineBuffer: LineBuffer
    /// The device its last request named, for the decoder to give the next one the same
    /// `String`. Control loop only.
    var deviceNames = DeviceNames()
    /// Reading paused because too much output is queued (resumed when it drains).
    var readPaused = false
    /// What this client read in the current turn of the loop (its share of the input budget).
    /// Control loop only.
    var inputShare = InputBudget.Share()
    var lingerTimer: LoopTimer?
    /// Raw input paused by the device's back-pressure.
    var rawInputPaused = false
    /// Bytes that followed an `attach` line in the same read, held until its outcome is known.
    var bytesAfterAttach: [UInt8] = []
    var idleCheckScheduled = false
    /// Closes the connection if no request line is completed in time
    /// (``ControlServerLimits/idleConnectionTimeout``); nil once one was.
    var firstRequestTimer: LoopTimer?

    /// Why the connection closed (or is closing); `nil` while open. Control loop only.
    package internal(set) var closeReason: CloseReason?

    init(id: UInt64, credentials: ClientCredentials, server: ControlServer) {
        self.id = id
        self.credentials = credentials
        self.server = server
        self.loop = server.loop
        self.maxOutboundBytes = server.limits.maxOutboundBytes
        self.lineBuffer = LineBuffer(maxLineBytes: server.limits.maxLineBytes)
    }

    /// False once the connection is closed or closing (not while it drains: a client that
    /// half-closed is still owed its replies). Any thread.
    package var isOpen: Bool { state.current.acceptsLines }

    /// Bytes sent to this client and not yet written to its socket. Any thread.
    package var outboundBytes: Int { queuedBytes.load(ordering: .relaxed) }

    /// Requests handed to the handler and not yet answered. Control loop only.
    package var pendingRequestCount: Int {
        loop.preconditionInLoop()
        return output.withLock { $0.pendingRequests }
    }

    // MARK: - Senders (any thread)

    /// Answers request `id` with `result`. Any thread.
    package func respond(id: RequestID, result: some JSONEncodable) {
        guard isOpen else { return }
        // On the control loop, with no batch to gather it, a reply is encoded on the stack and
        // written from there: no array, unless it has to wait in the queue.
        if loop.inLoop, routedCount.load(ordering: .relaxed) == 0,
            ResponseEncoder.withSuccessLine(id: id, result: result, { respondFromStack($0, id: id) })
        {
            return
        }
        let line = fitted(ResponseEncoder.successLine(id: id, result: result), id: id)
        if routedCount.load(ordering: .relaxed) > 0, reroute(line, for: id) { return }
        deliver(line, isResponse: true)
    }

    /// Answers request `id` with an error. If it was an `attach`, the connection then reads
    /// requests again. Any thread.
    package func respond(id: RequestID, error: RPCError) {
        guard isOpen else { return }
        var line: [UInt8] = []
        ResponseEncoder.failure(id: id, error: error, into: &line)
        line = fitted(line, id: id)
        if routedCount.load(ordering: .relaxed) > 0, reroute(line, for: id) { return }
        deliver(line, isResponse: true)
        // After the line is on its way, so that the refusal reaches the client before anything
        // read after the attach is answered.
        if state.current == .awaitingAttach { loop.perform { self.attachRefused(id) } }
    }

    /// Answers a request with a response line the caller encoded (with `ResponseEncoder`, ending
    /// in `\n`). Any thread.
    package func respond(encodedLine line: [UInt8]) {
        deliver(line, isResponse: true)
    }

    /// Sends a notification. Any thread.
    package func notify(method: String, params: some JSONEncodable) {
        guard isOpen else { return }
        var line: [UInt8] = []
        ResponseEncoder.notification(method: method, params: params, into: &line)
        deliver(line, isResponse: false)
    }

    /// Sends a line the caller encoded (a notification, ending in `\n`). Encode once and send the
    /// same array to many connections: it is shared, not copied. Any thread.
    package func send(line: [UInt8]) {
        deliver(line, isResponse: false)
    }

    /// Closes the connection (what is queued is dropped); the handler hears
    /// ``ControlRequestHandler/connectionDidClose(_:)`` as usual. Any thread.
    package func disconnect(_ reason: String) {
        closeSoon(.disconnected(reason))
    }

    /// Closes the connection once the lines sent before this call are written (within the linger
    /// timeout): the client reads what it was told last, such as why it is being disconnected.
    /// Nothing sent after this call goes out. Any thread.
    package func disconnectAfterFlushing(_ reason: String) {
        loop.perform { self.closeAfterFlushing(.disconnected(reason)) }
    }

    /// ``deliver(_:isResponse:)`` for a response lent for the call. Control loop only.
    private func respondFromStack(_ line: UnsafeRawBufferPointer, id: RequestID) {
        guard line.count <= maxOutboundBytes else { return deliver(fitted([UInt8](line), id: id), isResponse: true) }
        guard reserve(line.count) else { return }
        enqueue(line, isResponse: true, handedOver: false)
    }

    /// Accounts `line` against the outbound limit and gets it to the loop.
    private func deliver(_ line: [UInt8], isResponse: Bool) {
        guard isOpen, !line.isEmpty, reserve(line.count) else { return }
        dispatch(line, isResponse: isResponse)
    }

    /// Stops the senders now and closes on the loop, never inside a handler call. Any thread.
    func closeSoon(_ reason: CloseReason) {
        state.move(to: .closing)
        loop.perform { self.close(reason) }
    }
}

extension ClientConnection: Hashable, Identifiable, CustomStringConvertible {
    package static func == (a: ClientConnection, b: ClientConnection) -> Bool { a === b }
    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// "client #7 (pid 1234, uid 1000, gid 1000)". Any thread.
    package var description: String { "client #\(id) (\(credentials))" }
}
