import ControlProtocol
import Glibc
import IOLoop
import JSONCodec
import TelnetComPort

/// The connection as the daemon's client: its `attach`, the raw session's two directions, and
/// the accessory coming and going. Device loop only.
extension NetworkConnection: RequestOrigin {
    var pid: Int32 { 0 }

    /// Asks for the accessory's raw session. Not waiting: a second connection while another
    /// client holds the accessory is told so and closed at once.
    func beginAttach() {
        guard let registry, case .detached = session, !isClosed else { return }
        let id = nextRequestID
        nextRequestID += 1
        session = .attaching(id: id, pending: [])
        registry.handle(Request(id: .int(id), method: .attach(AttachParams(device: accessoryName))), from: self)
    }

    func respond(id: RequestID, result: Result<any JSONEncodable & Sendable, RPCError>) {
        loop.assertInLoop()
        guard !isClosed else { return }
        if case .attaching(let attachID, let pending) = session, id == .int(attachID) {
            switch result {
            case .success(let value):
                // `beginRaw` follows at once, with the bytes that waited.
                session = .attaching(id: attachID, pending: pending)
                pendingToken = (value as? AttachResult)?.session
            case .failure(let error):
                session = .detached
                counters.refusedBytes += UInt64(pending.count)
                attachRefused(error)
            }
            return
        }
        controlAnswered(id: id, result: result)
    }

    /// The accessory cannot be had: if it is there but another client holds it, the client is
    /// told in words it can show (a telnet client prints them) and disconnected; if it is not
    /// ready, the connection waits for it.
    private func attachRefused(_ error: RPCError) {
        let ready = registry?.accessory(named: accessoryName)?.state == .ready
        guard ready else {
            registry?.log(.info, "\(description): waiting for \(accessoryName) (\(error.message))")
            return
        }
        // The socket API's hint (`wait_ms`) means nothing to a TCP client: the first clause only.
        let why = error.message.split(separator: ";").first.map(String.init) ?? error.message
        send(Array("accessoryd: cannot attach to \(accessoryName): \(why)\r\n".utf8))
        close(reason: "refused: \(why)")
    }

    func notify(line: [UInt8]) {
        loop.assertInLoop()
        guard !isClosed, case .attached = session else { return }
        counters.bytesFromDevice += UInt64(line.count)
        send(telnet == nil ? line : TelnetEncoder.escaped(line))
    }

    func beginRaw(input: @escaping @Sendable ([UInt8]) -> Void) {
        loop.assertInLoop()
        guard !isClosed, case .attaching(_, let pending) = session else { return }
        session = .attached(input: input, token: pendingToken)
        pendingToken = nil
        counters.sessions += 1
        refusalLogged = false
        registry?.log(.info, "\(description): holds \(accessoryName) as a raw session")
        // After a replug, the line gets the client's settings again.
        reapplyLine()
        startModemPollIfAsked()
        startLineStatePollIfAsked()
        if !pending.isEmpty {
            counters.bytesToDevice += UInt64(pending.count)
            input(pending)
        }
        updateInterest()
    }

    func pauseRawInput(_ paused: Bool) {
        // Called from the raw input's own path, possibly on another thread.
        loop.execute { [weak self] in
            guard let self, !isClosed else { return }
            inputPaused = paused
            updateInterest()
        }
    }

    /// The daemon ends the session: the accessory went away (the connection stays, detached,
    /// until it is back), or an administrator or the idle limit ended it (the connection closes).
    func disconnect(reason: String) {
        loop.execute { [weak self] in
            guard let self, !isClosed else { return }
            let ready = registry?.accessory(named: accessoryName)?.state == .ready
            guard !ready else { return close(reason: reason) }
            guard case .attached = session else { return }
            session = .detached
            inputPaused = false
            stopModemPoll()
            stopLineStatePoll()
            registry?.log(.info, "\(description): \(accessoryName) went away; the connection waits for it (\(reason))")
            updateInterest()
        }
    }

    /// The raw stream is the device's bytes only: a telnet or raw TCP client would take a notice
    /// line for the device's.
    var wantsRawNotices: Bool { false }

    /// The accessory's state changed: a detached connection starts its session once it is ready.
    func accessoryChanged(ready: Bool) {
        loop.assertInLoop()
        guard ready, !isClosed, case .detached = session else { return }
        beginAttach()
    }
}
