import ControlProtocol
import IOLoop
import JSONCodec
import SystemCalls

/// An `attach`ed client: its `attach` operation stays executing for the whole session, so the
/// accessory's queue runs nothing else (single file: requests queued behind it wait), and it
/// holds the accessory's lock, so others' new requests wait outside the queue. Everything the
/// device sends goes to the client as it comes (no framing, no `device.data`), and everything it
/// sends goes to the device as it is. Ends when the client leaves, or when the device goes away
/// (the client is disconnected), or when no byte went either way for `limits.attach_idle_ms`
/// (the client gets a notice line, then is disconnected); then the operation finishes and the
/// queue goes on.
///
/// Threading: `origin` and `gate` any thread; the rest device loop only.
final class RawSession: @unchecked Sendable {  // @unchecked: `unflushed`, `operation` are device-loop-confined.
    let origin: any RequestOrigin
    let gate = RawInputGate()
    /// Bytes written to the channel's buffer and not yet to the device.
    var unflushed = 0
    /// The `attach` request, executing until the session ends.
    let operation: RequestOperation
    /// Told each byte either way; ends the session after `limits.attach_idle_ms` without one.
    let idle: IdleTimer
    /// The session's own `control` requests, sent on another connection with its token.
    let controls: SessionControls

    init(origin: any RequestOrigin, operation: RequestOperation, idle: IdleTimer, controls: SessionControls) {
        self.origin = origin
        self.operation = operation
        self.idle = idle
        self.controls = controls
    }
}

/// Back-pressure for a raw client's input: bytes read from the client and not yet written to the
/// device. Above `high` the client's socket is no longer read; at `low` it is read again. So the
/// daemon never holds more than about `high` plus one read of a client's raw bytes.
///
/// Threading: any thread (a lock inside).
final class RawInputGate: Sendable {
    static let high = 64 << 10
    static let low = 16 << 10
    private let state = Locked((inFlight: 0, paused: false))

    /// `count` bytes were read from the client. Returns true if reading must pause now.
    func admit(_ count: Int) -> Bool {
        state.withLock { s in
            s.inFlight += count
            if !s.paused && s.inFlight > Self.high {
                s.paused = true
                return true
            }
            return false
        }
    }

    /// `count` bytes reached the device. Returns true if reading may resume now.
    func release(_ count: Int) -> Bool {
        state.withLock { s in
            s.inFlight -= count
            if s.paused && s.inFlight <= Self.low {
                s.paused = false
                return true
            }
            return false
        }
    }
}

extension Accessory {
    /// Starts a raw session for the client of an `attach` that just executed: ends its
    /// subscriptions (a raw stream carries no JSON), takes the lock (without a lease) and routes
    /// the device's bytes to the client. Device loop.
    func beginRawSession(for operation: RequestOperation) -> RawSession {
        loop.assertInLoop()
        let origin = operation.origin
        onRawSessionStarting?(self, origin)
        let idle = IdleTimer(scheduler: loop, limit: .milliseconds(limits.attachIdleMs))
        let session = RawSession(
            origin: origin,
            operation: operation,
            idle: idle,
            controls: SessionControls(loop: loop, name: name)
        )
        lease.attach(by: origin.clientID)
        rawSession = session
        idle.start { [link] in link.accessory?.rawSessionIdle(session) }
        log(.info, "\(name): attached raw to client \(origin.clientID)")
        return session
    }

    /// The function a raw client's bytes go to: called on the control loop as they are read.
    /// When that is the device loop's thread (the default layout) they are written at once;
    /// otherwise they hop to the device loop. Either way every call takes the same road, so the
    /// bytes reach the device in the order read. Any thread.
    func rawInput(for session: RawSession) -> @Sendable ([UInt8]) -> Void {
        let loop = self.loop
        let link = self.link
        return { bytes in
            if session.gate.admit(bytes.count) { session.origin.pauseRawInput(true) }
            // The link is read on the device loop, where the accessory may have gone meanwhile.
            if loop.inLoop {
                // No block to queue and run on the next turn: the device starts on the bytes
                // before the loop handles its other events.
                link.accessory?.writeRaw(bytes, from: session)
            } else {
                loop.perform { link.accessory?.writeRaw(bytes, from: session) }
            }
        }
    }

    private func writeRaw(_ bytes: [UInt8], from session: RawSession) {
        loop.assertInLoop()
        guard rawSession === session, let channel else { return }
        do {
            try send(bytes, on: channel, for: session.operation)
        } catch {
            endRawSession(disconnecting: "cannot write to \(name): \(error)")
            return
        }
        counters.bytesOut += UInt64(bytes.count)
        session.idle.activity()
        session.unflushed += bytes.count
        if channel.queuedOutboundBytes == 0 { rawDrained() }
    }

    /// The channel's buffer emptied: the raw bytes in it reached the device. Device loop.
    func rawDrained() {
        guard let session = rawSession, session.unflushed > 0 else { return }
        let count = session.unflushed
        session.unflushed = 0
        if session.gate.release(count) { session.origin.pauseRawInput(false) }
    }

    /// No byte went either way for `limits.attach_idle_ms`: a notice line, then the client is
    /// disconnected. Device loop.
    private func rawSessionIdle(_ session: RawSession) {
        loop.assertInLoop()
        guard rawSession === session else { return }
        let reason = "no bytes either way for \(limits.attachIdleMs) ms (limits.attach_idle_ms)"
        log(.notice, "\(name): ending the raw session of client \(session.origin.clientID): \(reason)")
        // The one line the daemon itself writes into a raw stream, as its last: a JSON-RPC
        // notification on a line of its own, so that a person or a program can tell it apart.
        var line: [UInt8] = []
        let params: JSONObject = ["device": .string(name), "reason": .string(reason), "limit": "attach_idle_ms"]
        ResponseEncoder.notification(method: "device.detached", params: JSONValue.object(params), into: &line)
        if session.origin.wantsRawNotices { session.origin.notify(line: Array("\n".utf8) + line) }
        endRawSession(disconnecting: "\(name): \(reason)")
    }

    /// Ends the raw session, if any: on a device that went away, the client is disconnected with
    /// `reason`; a client that left is simply forgotten. The lock is released by the caller's
    /// usual path (``clientLeft(_:)``) or here. Device loop.
    func endRawSession(disconnecting reason: String?) {
        guard let session = rawSession else { return }
        rawSession = nil
        session.idle.stop()
        endSessionControls(session)
        log(.info, "\(name): raw session of client \(session.origin.clientID) ended")
        if let reason { session.origin.disconnect(reason: reason) }
        if lease.holder == session.origin.clientID { lease.release() }
        // The queue goes on (unless the operation already ended: a cancel got there first).
        if session.operation.state == .executing { session.operation.finish() }
    }
}
