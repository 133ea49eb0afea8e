import ControlProtocol
import IOLoop
import JSONCodec
import Operations
import Transports

/// A client's `transact`, `write` or `read` on one accessory, run single-file by the accessory's
/// queue.
///
/// - transact: sends the framed payload, then collects frames until one completes the response
///   (the accessory's `until` pattern, or the first frame when there is none).
/// - write: sends the framed payload; done when the bytes have left the daemon's buffer.
/// - read: collects up to `maxFrames` frames; at the timeout, returns what it has (if anything).
///
/// The response timer starts when the request executes (time spent waiting in the queue does not
/// count against it). A request that times out or is cancelled after sending makes the queue
/// resync before the next one. The one response to the client is sent from ``willFinish(error:)``.
///
/// Device loop only, except what `LoopOperation` allows from any thread (`cancel`).
final class RequestOperation: LoopOperation, @unchecked Sendable {  // @unchecked: state is device-loop-confined.
    enum Kind {
        case transact([UInt8])
        case write([UInt8])
        case read(maxFrames: Int)
        /// Holds the accessory and turns the connection raw (``RawSession``).
        case attach
        /// Modem lines and break (`RequestOperation+Control.swift`). Indirect: its parameters,
        /// inline, made every case a large value that each `switch` copied through a value witness.
        indirect case control(ControlParams)

        var methodName: String {
            switch self {
            case .transact: "transact"
            case .write: "write"
            case .read: "read"
            case .attach: "attach"
            case .control: "control"
            }
        }
    }

    /// Strong, though the accessory's queue holds its operations: each use of an unowned
    /// reference was a checked retain and a release (about 450 instructions a request). The cycle
    /// lasts only while the operation is in the queue (or parked): finishing or draining it,
    /// which every accessory's shutdown does, takes it out.
    let accessory: Accessory
    let kind: Kind
    /// How long the answer may take, from when the request starts executing. Kept in
    /// nanoseconds: instants are computed without `Duration`'s 128-bit math.
    private let responseTimeoutNanoseconds: UInt64
    var responseTimeout: Duration { .nanoseconds(Int64(clamping: responseTimeoutNanoseconds)) }
    let requestID: RequestID
    let origin: any RequestOrigin
    /// Called once when the operation has finished and replied (a `cancel` waiting to answer).
    var onComplete: ((RequestOperation) -> Void)?

    /// The frames taken, the first apart: a transaction's answer is usually one frame, and the
    /// result takes it without an array (``TransactResult/init(first:more:elapsedMs:)``).
    private var firstFrame: Frame?
    private var moreFrames: [Frame] = []
    private var frameCount: Int { firstFrame == nil ? 0 : 1 + moreFrames.count }

    private func take(_ frame: [UInt8]) {
        if firstFrame == nil { firstFrame = Frame(frame) } else { moreFrames.append(Frame(frame)) }
    }
    private var startedAt: LoopInstant?
    private var expired = false
    /// A `transact` whose answer was skipped by the framer (``frameSkipped(_:)``).
    private var answerSkipped = false
    private var written = 0
    private var replied = false
    /// An `attach` that started: its one response went out then, none at the end.
    private var answeredAtStart = false
    /// Whether the one response was the `cancelled` error (what a `cancel` of it reports).
    private(set) var answeredCancelled = false
    /// A `control`'s answer, set just before it finishes.
    var controlResult: DeviceLines?

    init(accessory: Accessory, kind: Kind, timeoutMs: Int, requestID: RequestID, origin: any RequestOrigin) {
        self.accessory = accessory
        self.kind = kind
        // Requests and the configuration allow at most a day; the clamp (35 years) only rules out overflow.
        self.responseTimeoutNanoseconds = min(UInt64(clamping: timeoutMs), 1 << 40) * 1_000_000
        self.requestID = requestID
        self.origin = origin
        super.init(loop: accessory.loop)
    }

    override var defaultName: String { "\(accessory.name).\(kind.methodName)#\(requestID)" }

    override func execute() {
        let accessory = self.accessory
        guard let device = accessory.deviceForRequests else {
            finish(
                error: AccessoryError.unavailable(
                    device: accessory.name,
                    state: accessory.state,
                    reason: accessory.stateReason
                )
            )
            return
        }
        let startedAt = loop.now
        self.startedAt = startedAt
        switch kind {
        case .transact(let payload), .write(let payload):
            do throws(AccessoryError) {
                try accessory.sendFrame(payload, to: device, for: self)
                written = payload.count
            } catch {
                finish(error: error)
                return
            }
            if case .write = kind, device.channel.queuedOutboundBytes == 0 {
                finish()
                return
            }
        case .read:
            break
        case .control(let params):
            // Sends no frame and claims none: what the device says meanwhile (a boot banner after
            // a reset) goes to subscribers.
            executeControl(params)
            return
        case .attach:
            // Single file: every request queued before it has finished, and it stays executing
            // until the session ends (`Accessory.endRawSession`), so none queued after it runs
            // meanwhile. It is answered now, before the first raw byte.
            let session = accessory.beginRawSession(for: self)
            answeredAtStart = true
            // The token is what lets this client's `control` requests in during the session.
            origin.respond(
                id: requestID,
                result: .success(AttachResult(device: accessory.name, session: session.controls.token))
            )
            origin.beginRaw(input: accessory.rawInput(for: session))
            return
        }
        accessory.claim(for: self, until: LoopInstant(nanoseconds: startedAt.nanoseconds &+ responseTimeoutNanoseconds))
    }

    /// Offers an inbound frame; returns true if this request took it. Device loop.
    func offer(frame: [UInt8]) -> Bool {
        guard state == .executing else { return false }
        switch kind {
        case .write, .attach, .control:
            return false
        case .transact:
            take(frame)
            if accessory.frameCompletes(frame) { finish() }
            return true
        case .read(let maxFrames):
            take(frame)
            if frameCount >= maxFrames { finish() }
            return true
        }
    }

    /// The framer skipped a frame while this request was executing. For a `transact`, a frame too
    /// large for `framing.max_frame_bytes` is almost surely its answer: the request fails now with
    /// that reason instead of waiting out its timeout for an answer that will never come. The rest
    /// of that frame may still be arriving, so the queue resyncs before the next request, as after
    /// a timeout. Badly encoded frames do not end it (they may be line noise before the answer).
    /// Device loop.
    func frameSkipped(_ error: FramingError) {
        guard state == .executing, case .transact = kind, case .frameTooLarge = error else { return }
        answerSkipped = true
        finish(
            error: AccessoryError.io(
                device: accessory.name,
                reason: "\(error); raise framing.max_frame_bytes if its answers can be that long"
            )
        )
    }

    /// The transport's outbound buffer emptied. Device loop.
    func outboundDrained() {
        if case .write = kind, state == .executing { finish() }
    }

    /// The deadline passed while this request was still executing. Device loop.
    func deadlinePassed() {
        loop.assertInLoop()
        guard state == .executing else { return }
        if case .read = kind, firstFrame != nil {
            finish()
            return
        }
        expired = true
        if case .transact = kind { leftAnswerOwed = true }
        finish(error: AccessoryError.timedOut(device: accessory.name, after: responseTimeout))
    }

    override var needsResync: Bool {
        // After a raw session the device may still answer what the raw client sent last.
        if case .attach = kind { return true }
        // A control sent nothing to answer; what a reset device prints is for subscribers.
        if case .control = kind { return false }
        // A transaction that timed out may still be answered: discard what comes late. A read that
        // timed out sent nothing, so there is nothing to resync.
        if expired, case .read = kind { return false }
        // Nor is a skipped answer: its tail may still be arriving.
        return expired || answerSkipped || super.needsResync
    }

    /// When this request, executing, stops waiting: its timeout counts from when it started.
    /// Device loop only.
    var deadline: LoopInstant? {
        guard state == .executing, let startedAt else { return nil }
        return LoopInstant(nanoseconds: startedAt.nanoseconds &+ responseTimeoutNanoseconds)
    }

    /// For a `transact` that has sent its frame and waits for the answer: when that answer is due.
    /// Device loop only.
    var responseDue: LoopInstant? {
        guard case .transact = kind else { return nil }
        return deadline
    }

    /// Set when a `transact` that sent its frame ends before its answer completed: it timed out,
    /// was cancelled, or its client left. The answer is still owed: the accessory's resync awaits
    /// it for the late window and discards it, so that it is never handed to the next request.
    /// Device loop only.
    private(set) var leftAnswerOwed = false

    /// How it ended, for the reason of the resync that follows it. Device loop only.
    var endDescription: String {
        if case .attach = kind { return "a raw session" }
        if answerSkipped { return "a \(kind.methodName) whose answer was too large" }
        return "a \(kind.methodName) that \(expired ? "timed out" : "was cancelled")"
    }

    override func willCancel() {
        if case .transact = kind, startedAt != nil { leftAnswerOwed = true }
    }

    override func willFinish(error: (any Error)?) {
        accessory.requestEnded(self)
        reply(error: error)
    }

    /// Answers a request that never entered the queue (refused at admission or while parked).
    func replyWithoutRunning(_ error: AccessoryError) {
        loop.assertInLoop()
        reply(error: error)
    }

    private func reply(error: (any Error)?) {
        guard !replied else { return }
        replied = true
        // Integer nanoseconds: Duration's arithmetic is 128-bit and cost ~900 instructions here.
        let elapsedNanoseconds = startedAt.map { start in
            let now = loop.now.nanoseconds
            return now > start.nanoseconds ? now - start.nanoseconds : 0
        }
        let accessory = self.accessory
        defer {
            accessory.onRequestCompleted?(self)
            onComplete?(self)
            onComplete = nil
        }
        if answeredAtStart { return }
        if let error {
            let rpc = AccessoryError.rpcError(for: error)
            answeredCancelled = rpc.errorCode == .cancelled
            switch rpc.errorCode {
            case .timedOut?: accessory.record(.timedOut)
            case .cancelled?: accessory.record(.cancelled)
            default: accessory.record(.failed)
            }
            origin.respond(id: requestID, result: .failure(rpc))
            return
        }
        accessory.record(.succeeded(elapsedNanoseconds: elapsedNanoseconds))
        let ms = Int64(((elapsedNanoseconds ?? 0) + 500_000) / 1_000_000)  // rounded
        switch kind {
        case .transact:
            let result =
                firstFrame.map { TransactResult(first: $0, more: moreFrames, elapsedMs: ms) }
                ?? TransactResult(frames: [], elapsedMs: ms)
            origin.respond(id: requestID, success: result)
        case .write:
            origin.respond(id: requestID, success: WriteResult(written: Int64(written)))
        case .read:
            let frames = firstFrame.map { [$0] + moreFrames } ?? []
            origin.respond(id: requestID, success: ReadResult(frames: frames))
        case .attach:
            break  // Answered when it started.
        case .control:
            if let controlResult {
                origin.respond(id: requestID, result: .success(controlResult))
            } else {
                origin.respond(id: requestID, result: .success(JSONValue.null))
            }
        }
    }
}
