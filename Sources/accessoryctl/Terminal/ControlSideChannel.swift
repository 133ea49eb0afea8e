import ControlProtocol
import IOLoop
import JSONCodec
import SystemCalls

/// The `control` requests of an interactive `attach` (break, DTR, RTS), sent on a second
/// connection: the attach's own connection carries raw bytes only.
///
/// Each carries the session's token from the attach's answer (`session`): the daemon then runs
/// it inside the session, at once, for this user only (docs/terminal.md). Without a token (a
/// daemon that gives none) the second connection is just another client, and the daemon refuses
/// it while the attach holds the accessory, naming the holder; the message is shown as it is.
/// Each request waits at most ``answerTimeout`` (a break of 250 ms is answered well within it),
/// then says so (closing the connection withdraws it), rather than freezing the terminal.
///
/// Threading: the session's loop thread.
final class ControlSideChannel {
    static let answerTimeout: Duration = .seconds(2)

    private let loop: IOLoop
    private let socketPath: String
    private let device: String
    private let session: String?
    private var source: FDSource?
    private var timer: LoopTimer?
    private var answer: [UInt8] = []
    private var completion: ((String?) -> Void)?

    init(loop: IOLoop, socketPath: String, device: String, session: String?) {
        self.loop = loop
        self.socketPath = socketPath
        self.device = device
        self.session = session
    }

    /// Sends `control` with `params` (besides the device), then calls `completion` once on this
    /// thread: with nil on success, else with the reason, for the person.
    func send(_ params: JSONObject, completion: @escaping (String?) -> Void) {
        guard self.completion == nil else {
            completion("the previous line request is still waiting for an answer")
            return
        }
        var object: JSONObject = ["device": .string(device)]
        for member in params { object.append(member.key, member.value) }
        if let session { object.append("session", .string(session)) }
        let request: JSONValue = [
            "jsonrpc": "2.0", "id": 1, "method": "control", "params": .object(object),
        ]
        let descriptor: OwnedFD
        do throws(SideChannelFailure) {
            descriptor = try Self.connect(socketPath, sending: Array((request.description + "\n").utf8))
        } catch {
            completion(error.message)
            return
        }
        answer = []
        self.completion = completion
        do throws(SyscallError) {
            source = try loop.addSource(owning: descriptor, interest: .readable) { [unowned self] _ in readable() }
        } catch {
            finish("cannot watch the connection: \(error)")
            return
        }
        timer = loop.scheduleTimer(after: Self.answerTimeout) { [unowned self] in
            finish("no answer from accessoryd within 2 s; the request is withdrawn")
        }
    }

    /// A new connection to the daemon, `line` written to it (a short line fits the socket's buffer).
    /// The line carries the session's token, so a per-user socket is checked as every client
    /// connection is (``ClientSocketTrust``) before the token is written.
    private static func connect(_ path: String, sending line: [UInt8]) throws(SideChannelFailure) -> OwnedFD {
        let trust = ClientSocketTrust.current(path: path)
        let uid = UserDatabase.effectiveUserID
        do throws(SocketTrustError) { try trust.checkBeforeConnect(path, uid: uid) } catch {
            throw SideChannelFailure(message: error.description)
        }
        let descriptor = try unreachable(path) { () throws(SyscallError) in
            try Socket.connectedUnixStream(to: .path(path))
        }
        let peer = try unreachable(path) { () throws(SyscallError) in try Socket.peerCredentials(descriptor.rawValue) }
        do throws(SocketTrustError) { try trust.checkPeer(peer, path: path, uid: uid) } catch {
            throw SideChannelFailure(message: error.description)
        }
        try unreachable(path) { () throws(SyscallError) in try FileIO.writeAll(descriptor.rawValue, line) }
        return descriptor
    }

    /// `body`'s value, its failure said as "cannot reach accessoryd".
    private static func unreachable<R: ~Copyable>(
        _ path: String,
        _ body: () throws(SyscallError) -> R
    ) throws(SideChannelFailure) -> R {
        do { return try body() } catch {
            throw SideChannelFailure(message: "cannot reach accessoryd at \(path): \(error)")
        }
    }

    private func readable() {
        guard let fd = source?.fd else { return }
        switch Result(catching: { () throws(SyscallError) in try FileIO.read(fd, max: 4096) }) {
        case .success(nil):
            return
        case .success(let bytes?) where !bytes.isEmpty:
            answer += bytes
        default:
            finish("accessoryd closed the connection without answering")
            return
        }
        guard let newline = answer.firstIndex(of: 0x0A) else {
            if answer.count > 65_536 { finish("accessoryd's answer is too long") }
            return
        }
        switch Result(catching: { () throws(MessageDecodingError) in try ServerMessage.decode(answer[..<newline]) }) {
        case .success(.response(let response)):
            if let error = response.error {
                let unsupported = error.code == ErrorCode.methodNotFound.rawValue
                finish(unsupported ? "not supported by this daemon: \(error.message)" : error.message)
            } else {
                finish(nil)
            }
        case .success(.notification):
            answer.removeSubrange(...newline)
        case .failure(let error):
            finish("accessoryd's answer cannot be read: \(error.message)")
        }
    }

    private func finish(_ reason: String?) {
        timer?.cancel()
        timer = nil
        source?.cancel()
        source = nil
        let completion = self.completion
        self.completion = nil
        completion?(reason)
    }
}

/// Why the side channel could not send its request: the message for the terminal.
///
/// Threading: a value. Any thread.
struct SideChannelFailure: Error {
    let message: String
}
