import ControlProtocol
import IOLoop
import SystemCalls

/// The control socket's server: accepts clients on a ``ListeningSocket``, splits what they send
/// into JSON-RPC request lines, hands decoded requests to a ``ControlRequestHandler`` and writes
/// what the handler answers, within ``ControlServerLimits``. It knows nothing about accessories.
///
/// It runs on its own loop (the control loop), never the device loop, so that no client can
/// delay a byte on a serial line.
///
/// ```swift
/// let controlLoop = try IOLoop.spawn(name: "control")
/// let socket = try ListeningSocket(path: "/run/accessoryd/accessoryd.sock", mode: 0o660, group: .name("dialout"))
/// let server = ControlServer(loop: controlLoop, socket: socket, handler: daemon, logger: logger)
/// server.start()
/// // … on SIGTERM:
/// await server.shutdown(flushTimeout: .milliseconds(500))
/// controlLoop.shutdown()
/// ```
///
/// Threading: ``init(loop:socket:limits:handler:logger:scheduler:)``, ``start()``, ``statistics``,
/// ``beginShutdown(flushTimeout:completion:)`` and ``shutdown(flushTimeout:)`` are any thread;
/// everything else runs on the control loop.
package final class ControlServer: @unchecked Sendable {  // @unchecked: vars loop-confined; others locked/atomic.
    /// The JSON-RPC error code of the line a client gets when the server is full (JSON-RPC's
    /// implementation-defined server error range).
    package static let tooManyClientsErrorCode = -32000

    /// The control loop.
    package let loop: IOLoop
    /// Where the server's timers are set (accept pause, linger, shutdown flush): `loop`, or a
    /// virtual-time loop in tests.
    let scheduler: any LoopScheduler
    package let limits: ControlServerLimits
    /// The socket's path, or "fd N (socket activation)".
    package let socketName: String
    let handler: any ControlRequestHandler
    let logger: ControlServerLogger
    let counters = StatisticsCounters()
    let socketFile: SocketFile?
    let pendingListener: Locked<OwnedFD?>

    // MARK: control loop only

    enum State {
        case created, running, shuttingDown, stopped
    }
    var state = State.created
    var listenSource: FDSource?
    var connections: [UInt64: ClientConnection] = [:]
    /// Open connections per uid (``ControlServerLimits/maxConnectionsPerUID``); a uid with none
    /// has no entry.
    var connectionsPerUID: [UInt32: Int] = [:]
    /// Whether a connection without `SO_PEERGROUPS` was logged at warning (once; then at debug).
    var warnedGroupsUnknown = false
    var nextConnectionID: UInt64 = 1
    /// Stops watching the listening socket for a while after `accept` ran out of descriptors.
    let acceptPause: AcceptPause
    /// Request bytes all clients together may still send in this turn of the loop.
    var inputBudget: InputBudget
    var rejectionLog = LogThrottle(interval: .seconds(1))
    /// Batches refused whole (``ClientConnection/handle(batch:)``).
    var batchRefusalLog = LogThrottle(interval: .seconds(1))
    /// Connections closed for sending no request (``ControlServerLimits/idleConnectionTimeout``).
    var idleTimeoutLog = LogThrottle(interval: .seconds(1))
    var shutdownTimer: LoopTimer?
    var shutdownCompletions: [@Sendable () -> Void] = []
    /// The bytes of one read, shared by all connections (they read one at a time, on the loop).
    let readBuffer: UnsafeMutableBufferPointer<UInt8>

    /// A server for `socket` on `loop` (the control loop) that hands requests to `handler`. It
    /// does nothing until ``start()``. Its timers go through `scheduler` (`loop` when nil), which
    /// must run on `loop`'s thread. Any thread.
    package init(
        loop: IOLoop,
        socket: consuming ListeningSocket,
        limits: ControlServerLimits = ControlServerLimits(),
        handler: any ControlRequestHandler,
        logger: ControlServerLogger = .discarding,
        scheduler: (any LoopScheduler)? = nil
    ) {
        self.loop = loop
        self.scheduler = scheduler ?? loop
        self.limits = limits
        self.handler = handler
        self.logger = logger
        self.socketName = socket.displayName
        self.socketFile = socket.file
        self.pendingListener = Locked(socket.descriptor)
        self.acceptPause = AcceptPause(
            scheduler: self.scheduler,
            initial: limits.acceptRetryInitial,
            maximum: limits.acceptRetryMaximum
        )
        self.readBuffer = .allocate(capacity: 65_536)
        self.inputBudget = InputBudget(perTurn: limits.inputBytesPerTurn)
    }

    deinit {
        readBuffer.deallocate()
    }

    /// Starts accepting clients (on the control loop). Any thread.
    package func start() {
        loop.execute { self.startOnLoop() }
    }

    /// The counters for `daemon.status`. Any thread.
    package var statistics: ControlServerStatistics { counters.snapshot }

    /// The clients connected now. Control loop only.
    package var clients: [ClientConnection] {
        loop.preconditionInLoop()
        return connections.values.sorted { $0.id < $1.id }
    }

    private func startOnLoop() {
        loop.assertInLoop()
        guard state == .created, let fd = pendingListener.withLock({ $0.take() }) else { return }
        do {
            listenSource = try loop.addSource(owning: fd, interest: .readable) { [self] _ in acceptReady() }
        } catch {
            logger.log(.error, "cannot watch the control socket \(socketName): \(error)")
            state = .stopped
            socketFile?.removeIfOurs()
            return
        }
        state = .running
        logger.log(.info, "control socket listening on \(socketName)")
    }

    /// A connection closed: forget it and tell the handler. Control loop only.
    func connectionClosed(_ connection: ClientConnection) {
        loop.assertInLoop()
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        let uid = connection.credentials.uid
        if let n = connectionsPerUID[uid] { connectionsPerUID[uid] = n > 1 ? n - 1 : nil }
        counters.clients.wrappingSubtract(1, ordering: .relaxed)
        let reason = connection.closeReason ?? .peerClosed
        logger.log(reason.logLevel, "\(connection) disconnected: \(reason)")
        if case .noRequest = reason {
            let (emit, suppressed) = idleTimeoutLog.admit(now: loop.now.nanoseconds)
            let more = suppressed > 0 ? " (\(suppressed) more since the last report)" : ""
            if emit { logger.log(.notice, "\(connection) disconnected: \(reason)\(more)") }
        }
        handler.connectionDidClose(connection)
        if state == .shuttingDown && connections.isEmpty { finishShutdown() }
    }
}
