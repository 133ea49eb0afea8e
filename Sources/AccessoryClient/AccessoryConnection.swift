import ControlProtocol
import IOLoop
import JSONCodec
import SystemCalls

/// A connection to accessoryd over its Unix socket, speaking the control protocol
/// (newline-delimited JSON-RPC 2.0) with async/await.
///
/// Many calls may be in flight at once, from many tasks: each gets a request id from this
/// connection, and responses are matched by id whatever order the daemon answers in.
/// Notifications (after ``subscribe(device:events:)``) arrive on ``events``. When the daemon
/// closes the socket, every call in flight fails at once with ``ClientError/disconnected``, and
/// so does every later call. Cancelling the task of a call sends the daemon a `cancel` for it;
/// the call then ends with the daemon's answer (usually a `cancelled` error, or the result if it
/// had already finished).
///
/// Threading: any thread; every method is safe to call concurrently. The socket is read and
/// written on one shared background loop thread, which resumes the waiting calls.
package final class AccessoryConnection: Sendable {
    /// Where this process finds accessoryd, by the rule every client shares: `$ACCESSORYD_SOCKET`
    /// (when not empty), else the system daemon's `/run/accessoryd/accessoryd.sock` when it
    /// exists, else the socket of a daemon run by this user (`$XDG_RUNTIME_DIR/accessoryd/` or
    /// `/tmp/accessoryd-<uid>/`). See ``DaemonPaths/clientSocket(explicit:environment:uid:exists:)``.
    /// Computed at each use (the system socket may appear). Any thread.
    package static var defaultSocketPath: String { DaemonPaths.currentClientSocket() }

    /// The socket path this connection was made to, or for a remote daemon its host URL
    /// (`ssh://…`).
    package let socketPath: String

    /// Where this connection was made to.
    package let endpoint: DaemonEndpoint

    /// Typed `device.data` and `device.state` notifications, in the order they arrived. Iterate
    /// it from one task. It finishes when the connection ends. At most the `eventBufferLimit`
    /// given to ``connect(socketPath:eventBufferLimit:)`` events wait unread; beyond that the
    /// oldest are dropped and counted in ``droppedEventCount``.
    package let events: AsyncStream<DeviceEvent>

    let core: ConnectionCore

    private init(endpoint: DaemonEndpoint, events: AsyncStream<DeviceEvent>, core: ConnectionCore) {
        self.endpoint = endpoint
        self.socketPath = endpoint.description
        self.events = events
        self.core = core
    }

    /// Connects to the daemon listening at `socketPath`.
    ///
    /// A socket in this user's per-user runtime directory (`/tmp/accessoryd-<uid>/`,
    /// `$XDG_RUNTIME_DIR/accessoryd/`) is checked before and after connecting: the directory and
    /// the socket must be this user's, the daemon behind it this user's or root's
    /// (`SystemCalls.ClientSocketTrust`; the system socket and other paths are used as given).
    ///
    /// Throws ``ClientError/daemonNotRunning(path:socketFileExists:)`` when there is no socket
    /// file or nothing listens on it, ``ClientError/permissionDenied(path:)`` when this user may
    /// not connect, ``ClientError/unsafeSocket(path:reason:)`` when the check refuses the socket
    /// (nothing is sent), ``ClientError/connectionFailed(path:reason:)`` otherwise. Any thread.
    package static func connect(
        socketPath: String = defaultSocketPath,
        eventBufferLimit: Int = 10_000
    ) async throws(ClientError) -> AccessoryConnection {
        try await connect(to: .socket(socketPath), eventBufferLimit: eventBufferLimit)
    }

    /// Connects to the daemon on another host, given as `ssh://[user@]host[:port]`: the system's
    /// `ssh` (the user's keys, agent and `~/.ssh/config`) runs `accessoryctl dial-stdio` there
    /// (`remoteCommand`, else `$ACCESSORYD_REMOTE_COMMAND`, else `accessoryctl`), and this
    /// connection speaks the protocol through it. `sshConfig` (else `$ACCESSORYD_SSH_CONFIG`)
    /// replaces `~/.ssh/config` (`ssh -F`).
    ///
    /// ssh connects while the first call is on its way: a host that cannot be reached, a host
    /// key that does not match or a remote daemon that is not running fail that call with
    /// ``ClientError/remoteEnded(host:message:exitStatus:)``, quoting ssh's message; so do the
    /// calls in flight when the connection is lost. A malformed URL or remote command throws
    /// ``ClientError/connectionFailed(path:reason:)`` here. Any thread.
    package static func connect(
        host: String,
        remoteCommand: String? = nil,
        sshConfig: String? = nil,
        eventBufferLimit: Int = 10_000
    ) async throws(ClientError) -> AccessoryConnection {
        let endpoint: DaemonEndpoint
        do throws(SSHDestinationError) {
            endpoint = try DaemonEndpoint.resolve(host: host, remoteCommand: remoteCommand, sshConfig: sshConfig)
        } catch {
            throw .connectionFailed(path: host, reason: error.description)
        }
        return try await connect(to: endpoint, eventBufferLimit: eventBufferLimit)
    }

    /// Connects to `endpoint`: a local socket (as ``connect(socketPath:eventBufferLimit:)``) or a
    /// remote host (as ``connect(host:remoteCommand:sshConfig:eventBufferLimit:)``). Any thread.
    package static func connect(
        to endpoint: DaemonEndpoint,
        eventBufferLimit: Int = 10_000
    ) async throws(ClientError) -> AccessoryConnection {
        let name = endpoint.description
        let loop: IOLoop
        do throws(SyscallError) {
            loop = try ClientLoop.shared.get()
        } catch {
            throw .connectionFailed(path: name, reason: "cannot start the client's I/O thread: \(error)")
        }
        let (fd, tunnel) = try await Connector.connect(endpoint)
        let (events, continuation) = AsyncStream<DeviceEvent>.makeStream(
            bufferingPolicy: .bufferingNewest(max(1, eventBufferLimit))
        )
        let core = ConnectionCore(loop: loop, path: name, events: continuation, tunnel: tunnel)
        guard loop.perform({ core.start(adopting: fd) }) else {
            OwnedFD(adopting: fd).close()
            tunnel?.release()
            throw .connectionFailed(path: name, reason: "the client's I/O thread has stopped")
        }
        return AccessoryConnection(endpoint: endpoint, events: events, core: core)
    }

    deinit {
        core.end(with: .disconnected)
    }

    /// Closes the connection: calls in flight fail with ``ClientError/disconnected``, ``events``
    /// finishes, and the daemon releases this client's lock and subscriptions. Idempotent. Any
    /// thread.
    package func close() {
        core.end(with: .disconnected)
    }

    /// Whether the connection is still open (neither closed nor dropped by the daemon). Any thread.
    package var isConnected: Bool { core.isOpen }

    /// Why the connection ended (``ClientError/disconnected``, or for a remote daemon what ssh
    /// said), nil while it is open. Any thread.
    package var endReason: ClientError? { core.shared.withLock { $0.ended } }

    /// How many notifications were dropped because ``events`` was not read fast enough. Any thread.
    package var droppedEventCount: Int { core.shared.withLock { $0.droppedEvents } }

    /// How many responses matched no call (answers to ``send(rawLine:)`` lines). Any thread.
    package var unmatchedResponseCount: Int { core.shared.withLock { $0.unmatchedResponses } }

    /// A fresh request id of this connection, for a call whose id the caller needs to know in
    /// advance (to ``cancel(requestID:)`` it from elsewhere). Any thread.
    package func makeRequestID() -> RequestID { core.allocateID() }

    /// Calls `method` and returns its result. `id` defaults to a fresh one. Any thread.
    package func call(_ method: Method, id: RequestID? = nil) async throws(ClientError) -> JSONValue {
        let response = try await exchange(id: id) { Request(id: $0, method: method).line }
        return try response.outcome.valueOrClientError()
    }

    /// Calls a method by name with raw params (for methods this library has no type for). Any
    /// thread.
    package func call(
        method: String,
        params: JSONObject? = nil,
        id: RequestID? = nil
    ) async throws(ClientError) -> JSONValue {
        let response = try await exchange(id: id) { RawRequest.line(id: $0, method: method, params: params) }
        return try response.outcome.valueOrClientError()
    }

    /// Writes `rawLine` as is (a `\n` is added if it has none) and waits for nothing: for tests
    /// of the daemon's handling of malformed input. Any thread.
    package func send(rawLine: [UInt8]) async throws(ClientError) {
        try core.sendRaw(RawRequest.terminated(rawLine))
    }

    /// Writes `rawLine` as is and waits for the response with `id`, or, with `nil`, for the next
    /// response whose id is `null` (the daemon's answer to a line whose id it cannot read).
    /// Returns the response whether it holds a result or an error. Any thread.
    package func send(rawLine: [UInt8], awaitingResponseTo id: RequestID?) async throws(ClientError) -> Response {
        let line = RawRequest.terminated(rawLine)
        guard id == nil else { return try await exchange(id: id) { _ in line } }
        let result = await withCheckedContinuation { core.sendRawAwaitingNullID(line, continuation: $0) }
        return try result.get()
    }

    /// Reserves an id, sends the line built for it and waits for its response; cancelling the
    /// task sends a `cancel` for the id.
    func exchange(id: RequestID?, line: (RequestID) -> [UInt8]) async throws(ClientError) -> Response {
        let core = self.core
        let id = try core.reserve(id)
        let bytes = line(id)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { core.startWaiting(id: id, line: bytes, continuation: $0) }
        } onCancel: {
            core.cancel(id)
        }
        return try result.get()
    }
}

extension Result where Success == JSONValue, Failure == RPCError {
    /// The result, or the RPC error as a ``ClientError``.
    fileprivate func valueOrClientError() throws(ClientError) -> JSONValue {
        switch self {
        case .success(let value): return value
        case .failure(let error): throw .rpc(error)
        }
    }
}

extension AccessoryConnection {
    /// A plain connected, non-blocking socket to the daemon, for `attach`, after which the
    /// connection is no longer JSON-RPC; checked and failing as
    /// ``connect(socketPath:eventBufferLimit:)``. Any thread.
    package static func connectSocket(socketPath: String = defaultSocketPath) async throws(ClientError) -> OwnedFD {
        OwnedFD(adopting: try await Connector.connect(path: socketPath))
    }

    /// As ``connectSocket(socketPath:)``, to any endpoint: for a remote one, the socket is the
    /// client's end of the `ssh` child's standard streams, and ``RawChannel/tunnel`` says why it
    /// ended (``SSHTunnel/ended()``) and must be released when done with. Any thread.
    package static func connectRaw(to endpoint: DaemonEndpoint) async throws(ClientError) -> RawChannel {
        let (fd, tunnel) = try await Connector.connect(endpoint)
        return RawChannel(socket: OwnedFD(adopting: fd), tunnel: tunnel)
    }
}

/// A raw connection to the daemon: the socket, and for a remote daemon the `ssh` child behind it.
/// Take the socket out with `let socket = channel.socket`.
///
/// Threading: one owner at a time (it is moved, never shared).
@frozen
package struct RawChannel: ~Copyable, Sendable {
    package var socket: OwnedFD
    package let tunnel: SSHTunnel?
}
