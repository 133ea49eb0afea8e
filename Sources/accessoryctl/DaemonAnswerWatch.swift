import AccessoryClient
import Glibc
import SystemCalls

/// Tells a user within seconds when the socket takes connections but no daemon answers them: a
/// socket unit (systemd's `accessoryd.socket`) listens whether or not the daemon it starts ever
/// comes up, and a client would otherwise wait forever. When a command has not finished after
/// ``probeAfter``, a second connection asks `daemon.status`; a daemon that answers it is merely
/// busy with the command (a transaction waiting for a lock), and the watch ends. When that probe
/// has no answer either by ``giveUpAfter``, the command's connection is closed and the user is
/// told what to look at. Only for a local socket: the probe costs a connection, which over
/// `--host ssh://` would be a new SSH session, and ssh reports its own failures.
///
/// Threading: ``start(socket:connection:)`` on the command's task; the watch runs on a task of
/// its own, and ``finish()`` may be called from any task.
final class DaemonAnswerWatch: Sendable {
    static let probeAfter: Duration = .seconds(3)
    static let giveUpAfter: Duration = .seconds(6)

    private let gaveUp = Locked(false)
    private let task: Locked<Task<Void, Never>?> = Locked(nil)

    /// Whether the watch closed the command's connection because nothing answered.
    var noDaemonAnswered: Bool { gaveUp.withLock { $0 } }

    /// Starts watching `connection`, which was made to `socket`.
    static func start(socket: String, connection: AccessoryConnection) -> DaemonAnswerWatch {
        let watch = DaemonAnswerWatch()
        let started = ContinuousClock.now
        let body = Task.detached { [watch] in
            do { try await Task.sleep(for: probeAfter) } catch { return }
            let answered = Locked(false)
            let probe = Task.detached {
                guard let second = try? await AccessoryConnection.connect(to: .socket(socket), reconnect: .never) else {
                    return
                }
                defer { second.close() }
                if (try? await second.call(.daemonStatus)) != nil { answered.withLock { $0 = true } }
            }
            // Polled, not awaited: a probe stuck in a listening socket's queue never returns.
            while !Task.isCancelled && !answered.withLock({ $0 }) {
                if ContinuousClock.now - started >= giveUpAfter {
                    watch.gaveUp.withLock { $0 = true }
                    probe.cancel()
                    connection.close()
                    return
                }
                do { try await Task.sleep(for: .milliseconds(100)) } catch { break }
            }
            probe.cancel()
        }
        watch.task.withLock { $0 = body }
        return watch
    }

    /// The command ended: stop watching.
    func finish() { task.withLock { $0?.cancel() } }

    /// What the user is told when nothing answered on `socket`.
    static func message(socket: String) -> String {
        "error: no daemon answers on \(socket): it accepts connections, but nothing answered "
            + "within \(giveUpAfter.components.seconds) s. Under systemd the socket unit listens even when "
            + "the daemon fails to start: see `systemctl status accessoryd` and `journalctl -u accessoryd`"
    }
}
