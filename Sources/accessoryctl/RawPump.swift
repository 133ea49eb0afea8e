import AccessoryClient
import ControlProtocol
import Glibc
import IOLoop
import SystemCalls

/// The byte pump of `accessoryctl attach`: sends the `attach` request, reads its answer, then
/// copies standard input to the socket and the socket to standard output until the input ends
/// (and the device has been quiet for `linger`), a SIGINT or SIGTERM, or the daemon hangs up.
///
/// With a ``PumpTerminal`` (standard input is a terminal), what is typed and what the device
/// sends pass through it; without one, bytes go through untouched.
///
/// Threading: one thread (the caller's), which runs a loop of its own until the pump ends.
final class RawPump {
    enum Outcome {
        case finished
        case failed(ClientError)
    }

    /// Input is not read while this much is still to be sent to the daemon.
    static let maxPending = 256 << 10

    private let loop: IOLoop
    private let linger: Duration
    private var socket: FDSource?
    private var input: FDSource?
    /// Standard input is a regular file (epoll refuses those): read it whenever there is room.
    private var inputIsFile = false
    private var readingFile = false
    private var toDaemon: [UInt8]
    private var answer: [UInt8] = []
    private var attached = false
    private var inputEnded = false
    private var lingerTimer: LoopTimer?
    private var outcome: Outcome?
    private let terminal: (any PumpTerminal)?

    private init(loop: IOLoop, request: [UInt8], linger: Duration, terminal: (any PumpTerminal)?) {
        self.loop = loop
        self.toDaemon = request
        self.linger = linger
        self.terminal = terminal
    }

    /// Runs the whole session on the calling thread. With a `terminal`, SIGHUP ends it as well
    /// (the terminal closed), so that the caller restores the terminal's settings.
    static func run(
        socket: consuming OwnedFD,
        request: [UInt8],
        linger: Duration,
        terminal: (any PumpTerminal)? = nil
    ) -> Outcome {
        let loop: IOLoop
        do {
            loop = try IOLoop.forCurrentThread(name: "attach")
        } catch {
            return .failed(.connectionFailed(path: "", reason: "cannot start an event loop: \(error)"))
        }
        defer { loop.shutdown() }
        let pump = RawPump(loop: loop, request: request, linger: linger, terminal: terminal)
        defer { terminal?.finished() }
        do {
            try pump.start(socket: socket)
        } catch {
            return .failed(.connectionFailed(path: "", reason: "\(error)"))
        }
        loop.run(while: { pump.outcome == nil })
        return pump.outcome ?? .finished
    }

    private func start(socket descriptor: consuming OwnedFD) throws(SyscallError) {
        socket = try loop.addSource(owning: descriptor, interest: [.readable, .writable]) { [unowned self] events in
            socketEvents(events)
        }
        let signals = try SignalPipe.install(terminal == nil ? [SIGINT, SIGTERM] : [SIGINT, SIGTERM, SIGHUP])
        let signalFD = signals.rawValue
        _ = try loop.addSource(owning: signals, interest: .readable) { [unowned self] _ in
            while (try? SignalPipe.next(signalFD)) != nil {}
            end(.finished)
        }
        try FileIO.setNonBlocking(0)
        do {
            input = try loop.addSource(fd: 0, interest: []) { [unowned self] _ in readInput() }
        } catch  where error.errno == .notPermitted {
            inputIsFile = true
        }
    }

    private func end(_ result: Outcome) {
        if outcome == nil { outcome = result }
    }

    // MARK: - The daemon's side

    private func socketEvents(_ events: FDEvents) {
        guard let fd = socket?.fd else { return }
        if events.contains(.readable) || events.contains(.hangup) || events.contains(.error) {
            switch Result(catching: { () throws(SyscallError) in try FileIO.read(fd, max: 65_536) }) {
            case .success(nil):
                break
            case .success(let bytes?) where bytes.isEmpty:
                // The daemon hung up: before or during the session, that is a failure; after the
                // input ended, the output is complete.
                end(attached && inputEnded ? .finished : .failed(.disconnected))
                return
            case .success(let bytes?):
                received(bytes)
            case .failure:
                end(.failed(.disconnected))
                return
            }
        }
        if events.contains(.writable) { flushToDaemon() }
    }

    private func received(_ bytes: [UInt8]) {
        guard attached else {
            answer += bytes
            guard let newline = answer.firstIndex(of: 0x0A) else { return }
            let rest = Array(answer[(newline + 1)...])
            switch Result(catching: { () throws(MessageDecodingError) in try ServerMessage.decode(answer[..<newline]) })
            {
            case .success(.response(let response)) where response.error != nil:
                end(.failed(.rpc(response.error!)))
            case .success(.response(let response)) where response.result?["attached"] == true:
                attached = true
                answer = []
                terminal?.attached(loop: loop) { [unowned self] in end(.finished) }
                if !rest.isEmpty { printOutput(terminal?.fromDevice(rest) ?? rest) }
                readMoreInput()
                if inputEnded { restartLinger() }
            default:
                end(
                    .failed(
                        .protocolError(
                            "accessoryd answered attach with: \(String(decoding: answer[..<newline], as: UTF8.self))"
                        )
                    )
                )
            }
            return
        }
        printOutput(terminal?.fromDevice(bytes) ?? bytes)
    }

    private func printOutput(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let chunk = Array(bytes[offset...])
            switch Result(catching: { () throws(SyscallError) in try FileIO.write(1, chunk) }) {
            case .success(.processed(let n)):
                offset += n
            case .success(.wouldBlock):
                usleep(1_000)  // A non-blocking standard output that is full: wait for the reader.
            case .failure:
                end(.finished)  // Standard output is gone (a closed pipe): nobody is reading.
                return
            }
        }
        if inputEnded { restartLinger() }
    }

    private func flushToDaemon() {
        guard let fd = socket?.fd else { return }
        while !toDaemon.isEmpty {
            let result = Result(catching: { () throws(SyscallError) in try FileIO.write(fd, toDaemon) })
            switch result {
            case .success(.processed(let n)):
                toDaemon.removeFirst(n)
            case .success(.wouldBlock):
                socket?.setInterest([.readable, .writable])
                return
            case .failure:
                end(.failed(.disconnected))
                return
            }
        }
        socket?.setInterest(.readable)
        if attached { readMoreInput() }
        if inputEnded { restartLinger() }
    }

    // MARK: - Standard input

    /// Reads input while there is room for it (and the attach has been answered).
    private func readMoreInput() {
        guard attached, !inputEnded, !readingFile else { return }
        if inputIsFile {
            // `readInput` flushes, and a flush asks for more input: the flag keeps that from
            // recursing once per 64 KiB of a large file.
            readingFile = true
            defer { readingFile = false }
            while !inputEnded && toDaemon.count < Self.maxPending { readInput() }
        } else {
            input?.setInterest(toDaemon.count < Self.maxPending ? .readable : [])
        }
    }

    private func readInput() {
        switch Result(catching: { () throws(SyscallError) in try FileIO.read(0, max: 65_536) }) {
        case .success(nil):
            return
        case .success(let bytes?) where !bytes.isEmpty:
            toDaemon += terminal?.fromKeyboard(bytes) ?? bytes
            flushToDaemon()
        default:
            // End of input (or an unreadable one): stop reading, let the device's last words out.
            inputEnded = true
            input?.cancel()
            input = nil
            restartLinger()
        }
    }

    private func restartLinger() {
        // Input that ended before the attach was answered (a pipe whose writer finished while a
        // remote connection was still being set up) lingers from the answer on, not before.
        guard toDaemon.isEmpty, attached else { return }
        lingerTimer?.cancel()
        lingerTimer = loop.scheduleTimer(after: linger) { [unowned self] in end(.finished) }
    }
}

/// What an interactive session does to the bytes that pass, and when it starts and ends.
///
/// Threading: the pump's loop thread.
protocol PumpTerminal: AnyObject {
    /// The attach was answered; `quit` ends the session (exit 0).
    func attached(loop: IOLoop, quit: @escaping () -> Void)
    /// What to send for typed `bytes` (possibly nothing: an escape command).
    func fromKeyboard(_ bytes: [UInt8]) -> [UInt8]
    /// What to show for the device's `bytes`.
    func fromDevice(_ bytes: [UInt8]) -> [UInt8]
    /// The session is over, however it ended.
    func finished()
}
