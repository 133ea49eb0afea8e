import ControlProtocol
import IOLoop
import Operations

/// The `control` requests of an `attach` session: break, DTR and RTS while a person is at the
/// terminal.
///
/// The attach connection carries raw bytes only, so its client sends `control` on another
/// connection; that one is another client, and the attach holds the accessory's queue and lock,
/// so an ordinary `control` would wait for the end of the session (or be refused, naming the
/// holder). The attach's answer therefore carries ``token``, 128 bits from the system's
/// cryptographic generator, seen only by the attach's client. A `control` whose `session` param
/// is that token, from a connection of the same uid as the attach's (the kernel's `SO_PEERCRED`,
/// not a claim of the client's), is the session's own: it runs at once, inside the session,
/// rather than behind it. The session holds the accessory's queue, so nobody else's request can
/// be cut into. Its controls run single-file in ``queue`` (a second `d` waits for the first
/// break to end); when the session ends, the one running stops between steps and the others
/// are cancelled, before the accessory serves anyone else.
///
/// Both checks are needed: the uid check keeps a token that leaked (a log, a screen shared) from
/// serving another user, and the token keeps another program of the same user from driving the
/// lines of a session it did not open without being given the token.
///
/// Threading: ``token`` any thread; the rest device loop only.
final class SessionControls: Sendable {
    /// 32 lowercase hexadecimal digits.
    let token: String
    /// The session's `control` requests, one at a time.
    let queue: DeviceQueue

    init(loop: any LoopScheduler, name: String) {
        // The standard library's system generator is getrandom(2) on Linux: unpredictable, not
        // merely unique.
        var generator = SystemRandomNumberGenerator()
        token = (0..<2).map { _ in Self.hex(generator.next()) }.joined()
        queue = DeviceQueue(loop: loop, name: "\(name).attach-controls")
    }

    /// Whether `candidate`, sent by `client`, names this session of `owner`'s. The comparison
    /// takes the same time wherever the first difference is: a local caller timing the answers
    /// learns nothing about the token.
    func admits(_ candidate: String, from client: any RequestOrigin, owner: any RequestOrigin) -> Bool {
        let expected = Array(token.utf8)
        let given = Array(candidate.utf8)
        var difference = UInt8(expected.count == given.count ? 0 : 1)
        for i in expected.indices { difference |= expected[i] ^ (i < given.count ? given[i] : 0) }
        return difference == 0 && client.uid == owner.uid
    }

    private static func hex(_ word: UInt64) -> String {
        let digits = String(word, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

extension Accessory {
    /// Admits a `control` that names an attach session (`session`): run now in the session's own
    /// line when it is this accessory's session and its client's user sent it, else refused
    /// with the same answer whether there is no session, another token or another user. Device
    /// loop.
    func submitInSession(_ op: RequestOperation, token: String) {
        loop.preconditionInLoop()
        guard let session = rawSession,
            session.controls.admits(token, from: op.origin, owner: session.origin)
        else {
            logRefusedSession(op.origin)
            op.replyWithoutRunning(.notSessionOwner(device: name))
            return
        }
        guard session.controls.queue.operationCount < limits.queueDepth else {
            op.replyWithoutRunning(.queueFull(device: name, depth: limits.queueDepth))
            return
        }
        session.controls.queue.addOperation(op)
    }

    /// A `control` naming no session of its sender's: logged (who sent it, never the token: a
    /// guess in the log would help the next guess, and a right token sent by another user is a
    /// leaked secret), at most once a second with a count of those held back.
    private func logRefusedSession(_ origin: any RequestOrigin) {
        let (emit, suppressed) = sessionRefusalLog.admit(now: loop.now.nanoseconds)
        guard emit else { return }
        let more = suppressed > 0 ? " (\(suppressed) more refused since the last report)" : ""
        log(
            .warning,
            "\(name): refused a control from client \(origin.clientID) (uid \(origin.uid)) naming an attach session: "
                + "no session, another session's token, or another user's\(more)"
        )
    }

    /// The session ended: its controls end with it, before the accessory serves anyone else.
    /// Device loop.
    func endSessionControls(_ session: RawSession) {
        session.controls.queue.cancelAll(error: AccessoryError.sessionEnded(device: name))
    }
}
