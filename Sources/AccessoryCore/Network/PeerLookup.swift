import Glibc
import IOLoop
import SystemCalls

/// Whose an accepted TCP connection is, asked of the kernel without blocking the loop: the
/// netlink socket of the question (``SocketOwnerQuery``) is watched on the loop, and a timer
/// ends the wait at the deadline. The accepted socket waits here, read by nobody, until then:
/// nothing is relayed for a connection whose owner is not known.
///
/// Device loop only (the listener's).
final class PeerLookup {
    /// How the lookup ended. A value. Device loop only.
    enum Outcome {
        case owner(uid_t)
        /// The kernel has no socket at the peer's end (closed meanwhile, or not this host's).
        case noSocket
        /// The question could not be asked or answered (the deadline passed, the kernel refused).
        case failed(String)
    }

    /// The accepted connection, until the listener takes it.
    var client: OwnedFD?
    let local: InetEndpoint
    let remote: InetEndpoint
    private var query: SocketOwnerQuery?
    private var source: FDSource?
    private var timer: LoopTimer?
    private var done: ((PeerLookup, Outcome) -> Void)?

    init(client: consuming OwnedFD, local: InetEndpoint, remote: InetEndpoint) {
        self.client = consume client
        self.local = local
        self.remote = remote
    }

    /// Asks; `done` is told once (possibly before this returns, when the question cannot be sent).
    func begin(on loop: IOLoop, deadline: Duration, done: @escaping (PeerLookup, Outcome) -> Void) {
        loop.assertInLoop()
        self.done = done
        do {
            // The peer's socket: its own end is our remote one.
            guard let query = try SocketOwnerQuery(local: remote, remote: local) else { return finish(.noSocket) }
            self.query = query
            source = try loop.addSource(fd: query.fd, interest: .readable) { [weak self] _ in self?.answerArrived() }
        } catch {
            return finish(.failed("\(error)"))
        }
        timer = loop.scheduleTimer(after: deadline) { [weak self] in
            self?.finish(.failed("the kernel did not answer within \(deadline)"))
        }
    }

    /// Ends the lookup without telling anyone (the listener closes).
    func cancel() {
        done = nil
        finish(.noSocket)
    }

    private func answerArrived() {
        guard let query else { return }
        do {
            switch try query.readAnswer() {
            case .owner(let uid): finish(.owner(uid))
            case .noSocket: finish(.noSocket)
            case .pending: break
            }
        } catch {
            finish(.failed("\(error)"))
        }
    }

    private func finish(_ outcome: Outcome) {
        source?.cancel()
        source = nil
        timer?.cancel()
        timer = nil
        query?.close()
        query = nil
        let tell = done
        done = nil
        tell?(self, outcome)
    }
}
