import SystemCalls

/// The `ssh` child that carries one connection to a remote accessoryd: its standard input and
/// output are one end of a socket pair whose other end the client reads and writes as it would
/// the daemon's socket (so every client path, raw `attach` included, works unchanged); its
/// standard error is kept (the last few KiB) to say why the connection ended.
///
/// A watcher thread reads that standard error, reaps `ssh` when it exits, and then tells the
/// waiters (``onEnd(_:)``) why the connection ended, in ssh's own words. Once the client is done
/// with the connection (``release()``), `ssh` has a grace period to finish on its own (its input
/// ended, it closes the remote session) before it is sent SIGTERM, then SIGKILL: a connection
/// never hangs on a remote host that stopped answering.
///
/// Threading: any thread. The state is behind one lock; waiters are called outside it, on the
/// watcher thread (or the caller's, when the end is already known).
package final class SSHTunnel: Sendable {
    package let destination: SSHDestination
    /// The ssh process.
    package let pid: Int32

    /// How long `ssh` may take to exit by itself after ``release()`` before SIGTERM.
    static let gracePeriod: UInt64 = 2_000_000_000
    /// How much of ssh's standard error is kept (its last bytes).
    static let stderrLimit = 8_192

    /// Threading: a value, only touched under `state`'s lock.
    private struct State {
        var stderr: [UInt8] = []
        var ended: ClientError?
        var waiters: [@Sendable (ClientError) -> Void] = []
        var releasedAt: UInt64?
    }

    private let state = Locked(State())

    private init(destination: SSHDestination, pid: Int32) {
        self.destination = destination
        self.pid = pid
    }

    /// Starts `ssh` for `destination` and returns it with the client's end of the connection: a
    /// connected, non-blocking, close-on-exec socket, as its raw number (the caller adopts it).
    static func open(
        _ destination: SSHDestination,
        settings: SSHSettings
    ) throws(ClientError) -> (tunnel: SSHTunnel, socket: CInt) {
        let url = destination.description
        guard let program = ChildProcess.locate(settings.program) else {
            throw .connectionFailed(
                path: url,
                reason: "cannot run \(settings.program): not found on PATH (install the OpenSSH client)"
            )
        }
        let arguments = destination.sshArguments(configFile: settings.configFile, remoteCommand: settings.remoteCommand)
        do throws(SyscallError) {
            let pair = try Socket.socketPair()
            let errors = try FileIO.pipe()
            let clientEnd = pair.first
            let sshEnd = pair.second
            let errorRead = errors.first
            let errorWrite = errors.second
            // ssh's ends block, as a terminal or a shell pipe would; ours stay non-blocking.
            try FileIO.setNonBlocking(sshEnd.rawValue, false)
            try FileIO.setNonBlocking(errorWrite.rawValue, false)
            let pid: Int32
            do throws(SyscallError) {
                pid = try ChildProcess.launchPiped(
                    program,
                    arguments: arguments,
                    standardInput: sshEnd.rawValue,
                    standardOutput: sshEnd.rawValue,
                    standardError: errorWrite.rawValue
                )
            } catch {
                clientEnd.close()
                errorRead.close()
                sshEnd.close()
                errorWrite.close()
                throw error
            }
            sshEnd.close()
            errorWrite.close()
            let tunnel = SSHTunnel(destination: destination, pid: pid)
            let stderrFD = errorRead.release()
            WorkerThread(name: "ssh-watch") { tunnel.watch(OwnedFD(adopting: stderrFD)) }.detach()
            return (tunnel, clientEnd.release())
        } catch {
            throw .connectionFailed(path: url, reason: "cannot start \(program): \(error)")
        }
    }

    /// Calls `body` once with why the connection ended (after ssh exited), at once if it has.
    package func onEnd(_ body: @escaping @Sendable (ClientError) -> Void) {
        let ended: ClientError? = state.withLock { state in
            if let ended = state.ended { return ended }
            state.waiters.append(body)
            return nil
        }
        if let ended { body(ended) }
    }

    /// Why the connection ended, once ssh has exited; waits for it.
    package func ended() async -> ClientError {
        await withCheckedContinuation { continuation in onEnd { continuation.resume(returning: $0) } }
    }

    /// The client is done with the connection (it closed its end, or read its end): ssh gets
    /// ``gracePeriod`` to exit by itself, then SIGTERM, then SIGKILL. Idempotent.
    package func release() {
        state.withLock { state in
            if state.releasedAt == nil { state.releasedAt = MonotonicClock.nowNanoseconds() }
        }
    }

    /// The watcher thread: keeps ssh's standard error, enforces the grace period, reaps ssh and
    /// tells the waiters. Polls ssh's status every 100 ms (a `waitpid` that does not block).
    private func watch(_ stderr: consuming OwnedFD) {
        let fd = stderr.rawValue
        var termination: ChildProcess.Termination?
        var stderrOpen = true
        var drainUntil: UInt64 = 0
        var signalled = 0
        while true {
            let now = MonotonicClock.nowNanoseconds()
            if termination == nil, let ended = try? ChildProcess.wait(pid, block: false) {
                termination = ended
                // A grandchild (a ProxyCommand) may keep the pipe open: read on briefly only.
                drainUntil = now + 300_000_000
            }
            if termination != nil && (!stderrOpen || now >= drainUntil) { break }
            if termination == nil, let released = state.withLock({ $0.releasedAt }),
                now >= released + Self.gracePeriod * UInt64(signalled + 1)
            {
                try? ChildProcess.signal(pid, signalled == 0 ? ChildProcess.terminationSignal : ChildProcess.killSignal)
                signalled = min(signalled + 1, 1)
            }
            guard stderrOpen else {
                ThreadSleep.milliseconds(20)
                continue
            }
            guard (try? FileIO.waitReadable(fd, milliseconds: 100)) == true else { continue }
            switch Result(catching: { () throws(SyscallError) in try FileIO.read(fd, max: 4096) }) {
            case .success(let bytes?) where !bytes.isEmpty:
                state.withLock { state in
                    state.stderr += bytes
                    if state.stderr.count > Self.stderrLimit {
                        state.stderr.removeFirst(state.stderr.count - Self.stderrLimit)
                    }
                }
            case .success(nil):
                continue
            default:
                stderrOpen = false
            }
        }
        stderr.close()
        let reason = state.withLock { state in
            ClientError.remoteEnded(
                host: destination.description,
                message: Self.message(from: state.stderr),
                exitStatus: termination.flatMap { if case .exited(let code) = $0 { code } else { nil } }
            )
        }
        let waiters = state.withLock { state in
            state.ended = reason
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter(reason) }
    }

    /// ssh's last words: the last lines of its standard error, trimmed, at most about 1000
    /// characters (a person reads them in one error message).
    package static func message(from stderr: [UInt8]) -> String {
        let text = String(decoding: stderr, as: UTF8.self)
        let lines = text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingSpaces }
            .filter { !$0.isEmpty }
        var kept: [String] = []
        var length = 0
        for line in lines.reversed() {
            if length + line.count > 1000 && !kept.isEmpty { break }
            kept.insert(line, at: 0)
            length += line.count + 2
        }
        return kept.joined(separator: "; ")
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
