import AccessoryConfig
import ControlProtocol
import Glibc
import IOLoop
import JSONCodec
import SystemCalls
import TelnetComPort
import Transports

/// One TCP connection to a network listener (``NetworkListener``): a client of the daemon's
/// own, like a pty view, that holds the accessory as a raw session (`attach`) while it is
/// connected. Its credentials are those of the peer socket's owner, looked up in the kernel at
/// accept, so the accessory's `access:` judges it as it judges a Unix-socket client.
///
/// `raw` connections carry the device's bytes both ways; `rfc2217` ones speak telnet with
/// COM-PORT-OPTION (``TelnetServerStream``), whose commands act on the line through the
/// accessory's session entry points (``Accessory/applySessionLine(_:for:)``) and the `control`
/// machinery.
///
/// While the accessory is absent the connection stays: what the client writes is refused and
/// counted, and when the accessory is back the session starts again with the client's settings.
///
/// Device loop only (`@unchecked Sendable`: a ``RequestOrigin`` must be Sendable; every member
/// is used on the device loop).
final class NetworkConnection: @unchecked Sendable {
    let clientID: UInt64
    let uid: uid_t
    let gid: gid_t
    let groups: [gid_t]
    let connectedSinceMs: Int64
    let accessoryName: String
    let settings: NetworkListenerSettings
    let remote: InetEndpoint
    let loop: IOLoop
    weak var registry: AccessoryRegistry?
    /// Told once when the connection is closed (its listener forgets it).
    var onClosed: ((NetworkConnection) -> Void)?

    private var socket: OwnedFD?
    private var source: FDSource?
    /// Telnet and COM-PORT-OPTION (`rfc2217`), nil for `raw`.
    var telnet: TelnetServerStream?
    /// Bytes for the client not yet written (bounded by `limits.listener_outbound_bytes`).
    private var output: [UInt8] = []
    private(set) var isClosed = false
    var session = Session.detached
    var counters = NetworkConnectionStatus.Counters()
    var nextRequestID: Int64 = 1
    /// The client's bytes wait: the device is behind (the raw session's back-pressure).
    var inputPaused = false
    /// The client asked (FLOWCONTROL-SUSPEND) that nothing be sent to it for now.
    var outputSuspended = false
    /// The COM-PORT state the client asked for (``NetworkConnection+ComPort``).
    var port = ComPortState()
    /// Said once until the accessory is back: writes are refused.
    var refusalLogged = false
    /// The token of the `attach` just answered, until its session begins.
    var pendingToken: String?
    /// SET-CONTROL values waiting for their `control` request's answer, by request id.
    var pendingControls: [Int64: UInt8] = [:]
    /// Reads the modem lines while the client's modem-state mask asks for them.
    var modemPoll: LinePoll?
    /// The modem state last reported to the client.
    var lastModemState: UInt8?
    /// Reads the line state while the client's line-state mask asks for some bit.
    var lineStatePoll: LoopTimer?
    /// The line state at the last reading, and the driver's counters then (the next reading's
    /// events are counted from them).
    var lastLineState: UInt8?
    var lastLineCounts: Termios.InterruptCounts?

    /// What the connection holds of the accessory. A value. Device loop only.
    enum Session {
        /// No session: the accessory is absent (or not yet asked).
        case detached
        /// The `attach` is sent; the client's bytes wait for its answer.
        case attaching(id: Int64, pending: [UInt8])
        /// The raw session runs: the client's bytes go to `input`; `token` lets `control`s in.
        case attached(input: @Sendable ([UInt8]) -> Void, token: String?)

        var name: String {
            switch self {
            case .detached: "detached"
            case .attaching: "attaching"
            case .attached: "attached"
            }
        }
    }

    /// The most read from the client per readiness event.
    static let readChunk = 4_096
    /// What may wait for a client that does not read before it is disconnected
    /// (`limits.listener_outbound_bytes`): at serial speeds, many seconds of the device's output.
    let outputLimit: Int
    /// What the client may send before its `attach` is answered.
    static let pendingLimit = 64 << 10

    init(
        socket: consuming OwnedFD,
        clientID: UInt64,
        credentials: (uid: uid_t, gid: gid_t, groups: [gid_t]),
        accessoryName: String,
        settings: NetworkListenerSettings,
        remote: InetEndpoint,
        loop: IOLoop,
        registry: AccessoryRegistry
    ) throws(SyscallError) {
        self.clientID = clientID
        self.uid = credentials.uid
        self.gid = credentials.gid
        self.groups = credentials.groups
        self.connectedSinceMs = WallClock.microsecondsSinceEpoch() / 1000
        self.accessoryName = accessoryName
        self.settings = settings
        self.remote = remote
        self.loop = loop
        self.registry = registry
        let fd = socket.rawValue
        self.socket = consume socket
        self.outputLimit = registry.limits.listenerOutboundBytes
        if settings.kind == .rfc2217 {
            telnet = TelnetServerStream(maxSubnegotiation: registry.limits.telnetMaxSubnegotiationBytes)
        }
        source = try loop.addSource(fd: fd, interest: .readable) { [weak self] events in self?.socketEvent(events) }
    }

    /// Starts the conversation: the telnet negotiation, and the session if the accessory is
    /// ready. Device loop.
    func start() {
        loop.assertInLoop()
        if var t = telnet {
            send(t.start())
            telnet = t
        }
        if let a = registry?.accessory(named: accessoryName) {
            port.line = a.configuredSerialSettings
            if a.state == .ready { beginAttach() }
        }
    }

    /// Closes the connection for good: the session ends (the line's settings put back first),
    /// its requests are withdrawn, the socket closed. Device loop.
    func close(reason: String) {
        loop.assertInLoop()
        guard !isClosed else { return }
        // Also when the accessory just ended the session (idle, an administrator): its `attach`
        // has not finished yet, so nobody else is served before the line is put back.
        if case .attached = session { undoLineChanges() }
        isClosed = true
        session = .detached
        stopModemPoll()
        stopLineStatePoll()
        source?.cancel()
        source = nil
        registry?.releaseEverything(of: self)
        registry?.clients[clientID] = nil
        socket.take()?.close()
        output = []
        registry?.log(.info, "\(description): closed (\(reason))")
        onClosed?(self)
    }

    /// `modem via rfc2217 127.0.0.1:4001 from 127.0.0.1:50312 (client 7, uid 1000)`.
    var description: String {
        "\(accessoryName) via \(settings.kind.rawValue) \(settings.listen) from \(remote) (client \(clientID), uid \(uid))"
    }

    // MARK: - The socket

    private func socketEvent(_ events: FDEvents) {
        loop.assertInLoop()
        guard !isClosed else { return }
        if events.contains(.writable) { flush() }
        if events.contains(.readable) || events.contains(.hangup) || events.contains(.error) { readFromClient() }
    }

    private func readFromClient() {
        guard let fd = socket?.rawValue else { return }
        let bytes: [UInt8]?
        do { bytes = try FileIO.read(fd, max: Self.readChunk) } catch {
            return endAfterPendingWrites("cannot read from the client: \(error)")
        }
        guard let bytes else { return }  // Would block.
        guard !bytes.isEmpty else { return endAfterPendingWrites("the client closed the connection") }
        counters.bytesFromClient += UInt64(bytes.count)
        guard var t = telnet else { return toDevice(bytes) }
        var reply: [UInt8] = []
        let inputs: [TelnetServerStream.Input]
        do { inputs = try t.receive(bytes, reply: &reply) } catch {
            telnet = t
            counters.protocolErrors += 1
            if case .subnegotiationTooLong = error {
                return close(reason: "protocol error: \(error) (limits.telnet_max_subnegotiation_bytes)")
            }
            return close(reason: "protocol error: \(error)")
        }
        telnet = t
        send(reply)
        for input in inputs {
            guard !isClosed else { return }
            switch input {
            case .data(let data): toDevice(data)
            case .comPort(let request): comPort(request)
            }
        }
    }

    /// The client is gone: closed once the bytes it sent last (on their way to the device
    /// through `loop.perform`) are written.
    private func endAfterPendingWrites(_ reason: String) {
        source?.setInterest([])
        loop.perform { [weak self] in self?.close(reason: reason) }
    }

    /// Queues `bytes` for the client and writes what the socket takes now. A client that lets
    /// more than ``outputLimit`` wait is disconnected: it is not reading.
    func send(_ bytes: [UInt8]) {
        guard !bytes.isEmpty, !isClosed else { return }
        output.append(contentsOf: bytes)
        if output.count > outputLimit {
            counters.droppedBytes += UInt64(output.count)
            return close(
                reason:
                    "the client read nothing while \(outputLimit) bytes waited for it (limits.listener_outbound_bytes)"
            )
        }
        flush()
    }

    private func flush() {
        guard let fd = socket?.rawValue, !outputSuspended || output.isEmpty else { return updateInterest() }
        var written = 0
        while written < output.count {
            let r = output[written...].withUnsafeBytes { try? Socket.send(fd, from: $0) }
            guard case .processed(let n)? = r, n > 0 else { break }
            written += n
        }
        if written > 0 {
            output.removeFirst(written)
            counters.bytesToClient += UInt64(written)
        }
        updateInterest()
    }

    func updateInterest() {
        guard let source, source.isValid else { return }
        var interest: FDInterest = []
        var reading = !inputPaused
        if case .attaching(_, let pending) = session, pending.count > Self.pendingLimit { reading = false }
        if reading { interest.insert(.readable) }
        if !output.isEmpty && !outputSuspended { interest.insert(.writable) }
        source.setInterest(interest)
    }

    // MARK: - Toward the device

    /// Data the client sent for the line.
    func toDevice(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        switch session {
        case .attached(let input, _):
            counters.bytesToDevice += UInt64(bytes.count)
            input(bytes)
        case .attaching(let id, let pending):
            session = .attaching(id: id, pending: pending + bytes)
            if pending.count + bytes.count > Self.pendingLimit { updateInterest() }
        case .detached:
            counters.refusedBytes += UInt64(bytes.count)
            if !refusalLogged {
                refusalLogged = true
                registry?.log(
                    .notice,
                    "\(description): refused what the client wrote: \(accessoryName) is not ready (said once until it is "
                        + "back; counted as refused_bytes)"
                )
            }
        }
    }
}
