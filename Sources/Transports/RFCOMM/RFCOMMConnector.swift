import IOLoop
import SystemCalls

/// One attempt to connect to an RFCOMM accessory, without blocking the loop:
///
/// ```
///   socket() ──EAFNOSUPPORT──────────────────────────────▶ failed(bluetoothUnavailable)
///      │
///   connect() ──0─────────────────────────────────────────▶ connected(StreamChannel)
///      │ ──EHOSTDOWN/ECONNREFUSED/ETIMEDOUT/EHOSTUNREACH──▶ failed(accessoryAbsent)
///      │ EINPROGRESS
///   wait for writable ──SO_ERROR == 0─────────────────────▶ connected(StreamChannel)
///      │              ──SO_ERROR != 0─────────────────────▶ failed(mapped as above)
///      └── timeout ───────────────────────────────────────▶ failed(accessoryAbsent, ETIMEDOUT)
/// ```
///
/// `completion` runs exactly once, on the loop, never from inside ``connect(to:on:timeout:driver:maxOutboundBytes:completion:)``
/// itself, unless ``cancel()`` comes first (then it never runs). Reconnect back-off is the
/// caller's business: make a new attempt.
///
/// Loop thread only.
public final class RFCOMMConnector: @unchecked Sendable {  // @unchecked: all mutable state is loop-confined.
    /// Where the attempt is.
    public enum Phase: Sendable, Equatable {
        case connecting
        case connected
        case failed
        case cancelled
    }

    public let endpoint: RFCOMMEndpoint
    public let loop: IOLoop
    /// Where the timeout and the next-iteration deliveries are scheduled: `loop`, or a
    /// virtual-time loop in tests.
    public let scheduler: any LoopScheduler
    public private(set) var phase = Phase.connecting

    private let driver: RFCOMMSocketDriver
    private let maxOutboundBytes: Int
    private var completion: ((Result<StreamChannel, TransportError>) -> Void)?
    private var source: FDSource?
    private var timer: LoopTimer?
    /// A socket that connected at once, held until the completion can be delivered (the channel
    /// is made then, so that no byte is read before the caller has set `onBytes`).
    private var connectedFD: OwnedFD?

    private init(
        endpoint: RFCOMMEndpoint,
        loop: IOLoop,
        scheduler: any LoopScheduler,
        driver: RFCOMMSocketDriver,
        maxOutboundBytes: Int,
        completion: @escaping (Result<StreamChannel, TransportError>) -> Void
    ) {
        self.endpoint = endpoint
        self.loop = loop
        self.scheduler = scheduler
        self.driver = driver
        self.maxOutboundBytes = maxOutboundBytes
        self.completion = completion
    }

    /// Starts connecting to `endpoint`. Its timers go through `scheduler` (`loop` when nil),
    /// which must run on `loop`'s thread. Loop thread only.
    @discardableResult
    public static func connect(
        to endpoint: RFCOMMEndpoint,
        on loop: IOLoop,
        timeout: Duration = .seconds(10),
        driver: RFCOMMSocketDriver = .bluetooth,
        maxOutboundBytes: Int = 1 << 20,
        scheduler: (any LoopScheduler)? = nil,
        completion: @escaping (Result<StreamChannel, TransportError>) -> Void
    ) -> RFCOMMConnector {
        loop.preconditionInLoop()
        let c = RFCOMMConnector(
            endpoint: endpoint,
            loop: loop,
            scheduler: scheduler ?? loop,
            driver: driver,
            maxOutboundBytes: maxOutboundBytes,
            completion: completion
        )
        c.start(timeout: timeout)
        return c
    }

    /// Abandons the attempt: the socket is closed and `completion` never runs. Idempotent; no
    /// effect once finished. Loop thread only.
    public func cancel() {
        loop.preconditionInLoop()
        guard phase == .connecting else { return }
        phase = .cancelled
        cleanUp()
    }

    // MARK: - Steps

    private func start(timeout: Duration) {
        let fd: OwnedFD
        do {
            fd = try driver.makeSocket()
        } catch {
            return finishLater(.failure(mapError(error)))
        }
        let connectedNow: Bool
        do {
            connectedNow = try driver.connect(fd.rawValue, endpoint)
        } catch {
            return finishLater(.failure(mapError(error)))
        }
        if connectedNow {
            connectedFD = consume fd
            scheduler.scheduleTimer(after: .zero) { [self] in
                guard phase == .connecting, let fd = connectedFD.take() else { return }
                finish(makeChannel(fd))
            }
            return
        }
        do {
            // The source and the timer hold the connector (strongly) until it finishes, so a caller
            // may drop the returned handle; `cleanUp` releases both.
            source = try loop.addSource(owning: fd, interest: .writable) { [self] events in
                connectEvent(events)
            }
        } catch {
            return finishLater(.failure(.system(context: "cannot watch the connection to \(endpoint)", error)))
        }
        timer = scheduler.scheduleTimer(after: timeout) { [self] in
            finish(.failure(.accessoryAbsent(address: endpoint.address.description, reason: .timedOut)))
        }
    }

    private func connectEvent(_ events: FDEvents) {
        guard phase == .connecting, let source else { return }
        let outcome: Errno?
        do {
            outcome = try driver.pendingError(source.fd)
        } catch {
            return finish(.failure(.system(context: "cannot complete the connection to \(endpoint)", error)))
        }
        if let errno = outcome {
            return finish(.failure(mapError(SyscallError(.connect, errno))))
        }
        if !events.contains(.writable) {
            // Hung up with no error recorded: the far end went away during the handshake.
            return finish(.failure(.accessoryAbsent(address: endpoint.address.description, reason: .connectionReset)))
        }
        timer?.cancel()
        timer = nil
        self.source = nil
        guard let fd = source.cancelAndTakeDescriptor() else {
            return finish(.failure(.closed))
        }
        finish(makeChannel(fd))
    }

    private func makeChannel(_ fd: consuming OwnedFD) -> Result<StreamChannel, TransportError> {
        do {
            return .success(try StreamChannel(owning: fd, kind: .socket, on: loop, maxOutboundBytes: maxOutboundBytes))
        } catch {
            return .failure(error)
        }
    }

    // MARK: - Finishing

    private func finish(_ result: Result<StreamChannel, TransportError>) {
        guard phase == .connecting else {
            if case .success(let channel) = result { channel.close() }
            return
        }
        switch result {
        case .success: phase = .connected
        case .failure: phase = .failed
        }
        cleanUp()
        let callback = completion
        completion = nil
        callback?(result)
    }

    /// For outcomes known inside `connect(...)`: delivered on the next iteration.
    private func finishLater(_ result: Result<StreamChannel, TransportError>) {
        scheduler.scheduleTimer(after: .zero) { [self] in finish(result) }
    }

    private func cleanUp() {
        timer?.cancel()
        timer = nil
        source?.cancel()
        source = nil
        connectedFD.take()?.close()
        if phase == .cancelled { completion = nil }
    }

    private func mapError(_ error: SyscallError) -> TransportError {
        switch error.errno {
        case .addressFamilyNotSupported, .protocolNotSupported, .socketTypeNotSupported:
            return .bluetoothUnavailable
        case .hostIsDown, .connectionRefused, .timedOut, .noRouteToHost, .connectionReset:
            return .accessoryAbsent(address: endpoint.address.description, reason: error.errno)
        case .permissionDenied, .notPermitted:
            return .permissionDenied(path: endpoint.description)
        default:
            return .system(context: "cannot connect to \(endpoint)", error)
        }
    }
}
