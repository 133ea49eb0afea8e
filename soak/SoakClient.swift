import ControlProtocol
import IOLoop
import SystemCalls

/// One client connection of the soak: sends random requests (``act()``), reads every line, and
/// checks each response against the request it answers (see `SoakClient+Checks.swift`).
///
/// Threading: the soak's loop thread only.
final class SoakClient {
    let number: Int
    unowned let world: SoakWorld
    private var source: FDSource?
    private var inbound: [UInt8] = []
    private var outbound: [UInt8] = []
    private var nextID: Int64 = 1
    /// The id the next request will get.
    var peekID: Int64 { nextID }
    /// Requests sent and not answered yet.
    var pending: [Int64: Call] = [:]
    /// Ids answered so far (a second response to one of them is a violation).
    var answered: Set<Int64> = []
    /// Outcomes of answered requests whose `cancel` has not been answered yet.
    var awaitingCancelAnswer: [Int64: Outcome] = [:]
    /// Accessories this connection holds the lock of (as far as it knows).
    var holding: Set<Int> = []
    var subscribed = false
    /// Called after each response has been checked (the soak's own probes read results here).
    var onResponse: ((Response) -> Void)?
    private var actTimer: LoopTimer?
    /// No new requests: the run is ending (or the connection was killed).
    private(set) var isDraining = false
    var isOpen: Bool { source != nil }

    init(world: SoakWorld) throws(SyscallError) {
        self.world = world
        world.connectionsMade += 1
        number = world.connectionsMade
        let fd = try Socket.connectedUnixStream(to: .path(world.socketPath))
        source = try world.loop.addSource(owning: fd, interest: .readable) { [unowned self] events in
            handle(events)
        }
        world.report.count("connections")
    }

    /// Starts acting every few milliseconds.
    func start() { scheduleAct() }

    private func scheduleAct() {
        let delay = world.random.int(world.options.actEveryMs)
        actTimer = world.loop.scheduleTimer(after: .milliseconds(delay)) { [unowned self] in
            actTimer = nil
            if pending.count < world.options.maxOutstanding { act() }
            if isOpen && !isDraining { scheduleAct() }
        }
    }

    /// Stops sending new requests; answers still come in.
    func drain() {
        isDraining = true
        actTimer?.cancel()
        actTimer = nil
    }

    /// Closes the connection abruptly, answers unread: what the daemon sees when a client is
    /// killed. Its outstanding requests are not expected to be answered any more.
    func kill() {
        drain()
        world.report.count("requests abandoned by kills", pending.count)
        for call in pending.values { world.noteOutcome(of: call, "its client was killed") }
        close()
    }

    /// Closes the connection (after a drain, or a kill).
    func close() {
        source?.cancel()
        source = nil
    }

    // MARK: - Sending

    /// Sends a request and remembers it; returns its id.
    @discardableResult
    func send(_ kind: Call.Kind, _ method: Method) -> Int64 {
        let id = nextID
        nextID += 1
        pending[id] = Call(kind: kind)
        if case .transact(_, let payload, _) = kind { world.traces[payload] = Trace(sentAt: Clock.seconds()) }
        outbound += Request(id: .int(id), method: method).line
        world.report.count("requests")
        flush()
        return id
    }

    private func flush() {
        guard let source else { return }
        while !outbound.isEmpty {
            let result: IOResult<Int>
            do {
                result = try outbound.withUnsafeBytes { try Socket.send(source.fd, from: $0) }
            } catch {
                lost("sending failed: \(error)")
                return
            }
            guard case .processed(let count) = result else {
                source.setInterest([.readable, .writable])
                return
            }
            outbound.removeFirst(count)
        }
        source.setInterest(.readable)
    }

    // MARK: - Receiving

    private func handle(_ events: FDEvents) {
        if events.contains(.writable) { flush() }
        guard let source else { return }
        do throws(SyscallError) {
            while let chunk = try FileIO.read(source.fd, max: 65_536) {
                if chunk.isEmpty {
                    lost("the daemon closed the connection")
                    return
                }
                inbound += chunk
            }
        } catch {
            lost("reading failed: \(error)")
            return
        }
        var start = inbound.startIndex
        while let newline = inbound[start...].firstIndex(of: 0x0A) {
            receive(line: inbound[start..<newline])
            start = newline + 1
            guard isOpen else { return }
        }
        inbound.removeSubrange(..<start)
    }

    private func receive(line: ArraySlice<UInt8>) {
        let message: ServerMessage
        do throws(MessageDecodingError) {
            message = try ServerMessage.decode(line)
        } catch {
            world.report.violation("client \(number): a line that is not a message: \(error)")
            return
        }
        switch message {
        case .response(let response): check(response)
        case .notification(let notification): check(notification)
        }
    }

    /// The daemon dropped a connection the soak did not kill: a well-behaved client is never
    /// disconnected.
    private func lost(_ why: String) {
        world.report.violation("client \(number): \(why) with \(pending.count) request(s) outstanding")
        pending.removeAll()
        drain()
        close()
    }
}
