import ControlProtocol
import IOLoop
import SystemCalls

/// Which socket an ``AccessoryConnection`` uses now, and getting a new one after the daemon
/// went away (``ReconnectPolicy``): the subscriptions to send again, the locks held and lost.
///
/// Threading: any thread; the state is behind one lock, continuations are resumed after it is
/// released, and a round of attempts runs on a task of its own.
final class ConnectionLink: Sendable {
    let endpoint: DaemonEndpoint
    let policy: ReconnectPolicy
    let loop: IOLoop
    let events: AsyncStream<DeviceEvent>.Continuation
    let state: Locked<LinkState>

    /// Everything the link's users share.
    ///
    /// Threading: a value, only touched inside `state`'s lock.
    struct LinkState {
        var core: ConnectionCore
        /// The daemon went away from `core` and no new socket is up yet.
        var down = false
        var closed = false
        /// Set when a round gave up on a connection with subscriptions: its events are over.
        var ended: ClientError?
        var round: Task<Void, Never>?
        var waiters: [CheckedContinuation<Result<ConnectionCore, ClientError>, Never>] = []
        /// The `subscribe`/`unsubscribe` calls that succeeded, in order, sent again after a reconnect.
        var subscriptions: [Method] = []
        var heldLocks: Set<String> = []
        var lostLocks: Set<String> = []
        var onChange: (@Sendable (LinkChange) -> Void)?
        /// When the last round succeeded: a daemon that drops the connection again at once
        /// (crashing at start, an administrator's `client.disconnect`) is knocked on at most
        /// once per ``Backoff/longestStep``.
        var restoredAt: ContinuousClock.Instant?
    }

    /// A link over `fd`, a socket just connected to `endpoint` (with `tunnel` for a remote one).
    init(
        endpoint: DaemonEndpoint,
        policy: ReconnectPolicy,
        loop: IOLoop,
        events: AsyncStream<DeviceEvent>.Continuation,
        tunnel: SSHTunnel?
    ) {
        self.endpoint = endpoint
        var policy = policy
        if case .ssh = endpoint { policy.enabled = false }  // ssh reports its own failures
        self.policy = policy
        self.loop = loop
        self.events = events
        // Replaced at once below: a core needs the link to report to.
        state = Locked(LinkState(core: ConnectionCore(loop: loop, path: endpoint.description, events: events)))
        let first = makeCore(tunnel: tunnel)
        state.withLock { $0.core = first }
    }

    /// A core for a new socket, reporting its loss to this link.
    func makeCore(tunnel: SSHTunnel?) -> ConnectionCore {
        var onLost: (@Sendable (ConnectionCore) -> Void)?
        if policy.enabled { onLost = { [weak self] core in self?.lost(core) } }
        return ConnectionCore(
            loop: loop,
            path: endpoint.description,
            events: events,
            tunnel: tunnel,
            finishesEvents: !policy.enabled,
            onLost: onLost
        )
    }

    /// The socket to send on: the current one, or (while the daemon is away) the next, waiting
    /// for the round of attempts (starting one if none runs). Any thread.
    func current() async throws(ClientError) -> ConnectionCore {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<ConnectionCore, ClientError>, Never>) in
            let now: Result<ConnectionCore, ClientError>? = state.withLock { s in
                if s.closed { return .failure(.disconnected) }
                if let ended = s.ended { return .failure(ended) }
                if !s.down || !policy.enabled { return .success(s.core) }
                s.waiters.append(continuation)
                if s.round == nil { s.round = startRound() }
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
        return try result.get()
    }

    /// Whether a call that failed with `error` before reaching the daemon may go on the next socket.
    func mayRetry(_ error: ClientError) -> Bool {
        guard policy.enabled, error == .disconnected else { return false }
        return state.withLock { !$0.closed && $0.ended == nil }
    }

    /// Closes for good: waiting calls fail with ``ClientError/disconnected``, `events` finishes.
    func close() {
        let (core, waiters, round) = state.withLock { s in
            s.closed = true
            defer { s.waiters = [] }
            return (s.core, s.waiters, s.round)
        }
        round?.cancel()
        for waiter in waiters { waiter.resume(returning: .failure(.disconnected)) }
        core.end(with: .disconnected)
        events.finish()
    }

    /// The daemon went away from `core`: its locks are lost; a connection with subscriptions
    /// starts reconnecting at once (others on their next call).
    private func lost(_ core: ConnectionCore) {
        let tell: (@Sendable (LinkChange) -> Void)? = state.withLock { s in
            guard s.core === core, !s.closed, !s.down else { return nil }
            s.down = true
            s.lostLocks.formUnion(s.heldLocks)
            s.heldLocks = []
            if !s.subscriptions.isEmpty && s.round == nil { s.round = startRound() }
            return s.onChange
        }
        tell?(.lost)
    }

    /// Starts a round on a task of its own. Called under the lock.
    private func startRound() -> Task<Void, Never> {
        Task.detached { [self] in await runRound() }
    }

    private func runRound() async {
        var backoff = Backoff(total: policy.giveUpAfter)
        var last = ClientError.daemonNotRunning(path: endpoint.description, socketFileExists: false)
        if let restored = state.withLock({ $0.restoredAt }), ContinuousClock.now - restored < Backoff.longestStep {
            try? await Task.sleep(for: Backoff.longestStep)
        }
        while !Task.isCancelled {
            do throws(ClientError) {
                let (fd, tunnel) = try await Connector.connect(endpoint)
                let core = makeCore(tunnel: tunnel)
                guard loop.perform({ core.start(adopting: fd) }) else {
                    OwnedFD(adopting: fd).close()
                    return finishRound(
                        .failure(
                            .connectionFailed(path: endpoint.description, reason: "the client's I/O thread has stopped")
                        )
                    )
                }
                if await resume(core) { return }
                last = .daemonRestarted
            } catch .unsafeSocket(let path, let reason) {
                // Someone else's socket where the daemon's was: never tried again by itself.
                return finishRound(.failure(.unsafeSocket(path: path, reason: reason)))
            } catch {
                last = error
            }
            guard let wait = backoff.nextWait() else { return finishRound(.failure(last)) }
            try? await Task.sleep(for: wait)
        }
    }

    /// Sends the subscriptions again on `core` before anything else, then makes it current.
    /// False when it was lost meanwhile.
    private func resume(_ core: ConnectionCore) async -> Bool {
        let subscriptions = state.withLock { $0.subscriptions }
        for method in subscriptions {
            do throws(ClientError) {
                _ = try await core.exchange(id: nil) { Request(id: $0, method: method).line }
            } catch {
                // The daemon came back with another configuration (an accessory gone): what it
                // refuses is skipped this time (and asked again after the next reconnect, when the
                // accessory may be back); a lost socket is tried again.
                if case .rpc = error { continue }
                return false
            }
        }
        guard core.isOpen else { return false }
        finishRound(.success(core))
        return true
    }

    /// Ends the round: the waiting calls go on `core`, or fail with the error. A connection
    /// with subscriptions ends for good when the round gives up (its events are over).
    private func finishRound(_ outcome: Result<ConnectionCore, ClientError>) {
        let (waiters, tell, finish) = state.withLock { s in
            defer { s.waiters = [] }
            s.round = nil
            var finish = false
            switch outcome {
            case .success(let core):
                s.core = core
                s.down = false
                s.restoredAt = .now
            case .failure(let error):
                if !s.subscriptions.isEmpty && !s.closed {
                    s.ended = error
                    finish = true
                }
            }
            return (s.waiters, s.closed ? nil : s.onChange, finish)
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
        if finish { events.finish() }
        switch outcome {
        case .success: tell?(.restored)
        case .failure(let error): tell?(.gaveUp(error))
        }
    }
}
