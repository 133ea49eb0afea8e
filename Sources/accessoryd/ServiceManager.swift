import AccessoryCore
import ControlProtocol
import ControlServer
import Glibc
import IOLoop
import SystemCalls
import Systemd

/// The daemon's side of systemd: `READY=1` once the control socket listens and
/// both loops run, `STATUS=` when the summary changes, `RELOADING=1`/`READY=1` around a reload,
/// `STOPPING=1`, the watchdog from the device loop, and the socket inherited by socket
/// activation. Without `NOTIFY_SOCKET` (not started by systemd) every notification is a no-op.
///
/// Threading: any thread. The configuration is fixed at init; the status is under a lock; each
/// notification is one datagram. ``inheritedListeningSocket()`` is main thread only, before the
/// loops start.
final class ServiceManager: Sendable {
    /// Name of the socket-activated descriptor to serve on (`FileDescriptorName=` in
    /// accessoryd.socket); without it the first listening stream socket is used.
    static let controlSocketName = "control"

    let notifier: ServiceNotifier?
    let watchdog: WatchdogSettings?
    let environment: [String: String]
    let log: DaemonLog
    private let state = Locked(State())

    private struct State {
        var status = ServiceStatus()
        /// The last STATUS= line sent, so that an unchanged summary is not sent again.
        var sentLine: String?
        var ready = false
        /// One log line for the first failed send, not one per watchdog ping.
        var reportedFailure = false
        /// A recount of the accessories' states is queued on the device loop.
        var recountQueued = false
    }

    /// Reads `NOTIFY_SOCKET` and the watchdog variables. A bad value is logged and that part is
    /// off: the daemon still runs (a service manager that cannot be told is not a reason to
    /// refuse service). Main thread.
    init(environment: [String: String], log: DaemonLog) {
        self.environment = environment
        self.log = log
        var notifier: ServiceNotifier?
        do { notifier = try ServiceNotifier.fromEnvironment(environment) } catch { log(.error, "\(error)") }
        var watchdog: WatchdogSettings?
        do {
            watchdog = try WatchdogSettings.parse(environment: environment, pid: getpid())
        } catch {
            log(.error, "\(error)")
        }
        if watchdog != nil && notifier == nil {
            log(.warning, "WATCHDOG_USEC is set but NOTIFY_SOCKET is not; the watchdog cannot be pinged")
            watchdog = nil
        }
        self.notifier = notifier
        self.watchdog = watchdog
        if let notifier {
            let dog = watchdog.map { ", watchdog ping every \($0.pingInterval)" } ?? ""
            log(.debug, "notifying the service manager at \(notifier.addressText)\(dog)")
        }
    }

    // MARK: - Socket activation

    /// What systemd passed at start: the control socket of socket activation (its descriptor, to
    /// make a `ListeningSocket` of; nil when none was passed: the daemon makes its own), and the devices kept in its file descriptor store
    /// across a restart, by name (``SystemdDescriptorStore``). The variables are removed from
    /// the environment either way, so the simulators do not inherit them.
    ///
    /// Main thread only, before any thread is started.
    func inheritedDescriptors() throws -> (listeningFD: CInt?, keptDevices: [String: CInt]) {
        let taken = try SocketActivation.take(
            preferredName: ServiceManager.controlSocketName,
            environment: environment,
            pid: getpid()
        )
        var kept: [String: CInt] = [:]
        var sockets: [SocketActivation.Descriptor] = []
        for d in taken.descriptors {
            if DeviceDescriptorStoreName.isDevice(d.name) && d.fd != taken.chosen?.fd {
                if kept[d.name] == nil {
                    kept[d.name] = d.fd
                } else {
                    log(.notice, "descriptor store: closing a second descriptor kept as \(d.name)")
                    OwnedFD(adopting: d.fd).close()
                }
            } else {
                sockets.append(d)
            }
        }
        if !kept.isEmpty { log(.info, "descriptor store: \(kept.count) devices kept across the restart") }
        guard !sockets.isEmpty else { return (nil, kept) }
        guard let chosen = taken.chosen else {
            let passed = sockets.map { "fd \($0.fd) (\($0.name))" }.joined(separator: ", ")
            throw ActivationError(
                description: "socket activation passed \(passed) but none is a listening stream socket"
            )
        }
        for other in sockets where other.fd != chosen.fd {
            log(
                .notice,
                "socket activation: ignoring fd \(other.fd) (\(other.name)); only one control socket is served"
            )
            OwnedFD(adopting: other.fd).close()
        }
        log(.info, "socket activation: serving on fd \(chosen.fd) (\(chosen.name))")
        return (chosen.fd, kept)
    }

    /// systemd's file descriptor store for the accessories, holding `kept` (handed back at this
    /// start); nil when not started by systemd as a service (nothing to keep devices in: they
    /// close at exit). A service has `INVOCATION_ID`; a program that only listens on a
    /// `NOTIFY_SOCKET` for READY=1 (a benchmark, a test) is not flooded with descriptors.
    func descriptorStore(kept: [String: CInt]) -> SystemdDescriptorStore? {
        guard let notifier, environment["INVOCATION_ID"] != nil else {
            for fd in kept.values { OwnedFD(adopting: fd).close() }
            return nil
        }
        return SystemdDescriptorStore(notifier: notifier, kept: kept, log: log)
    }

    /// Socket activation passed descriptors, but none can serve.
    struct ActivationError: Error, CustomStringConvertible {
        let description: String
    }

    // MARK: - Notifications

    /// Start-up is done: sends `READY=1` with the status once both loops have run a block queued
    /// after the registry's start (device loop) and the server's start (control loop), so that
    /// the service manager starts dependents only when the daemon really serves. Starts the
    /// watchdog on the device loop. Any thread.
    func announceReady(registry: AccessoryRegistry, controlLoop: IOLoop) {
        let deviceLoop = registry.loop
        deviceLoop.perform { [self] in
            // The states as they are now, whether or not one has changed yet.
            accessoriesChanged(registry)
            startWatchdog(on: deviceLoop)
            controlLoop.perform { [self] in
                let line = state.withLock { s in
                    s.ready = true
                    s.sentLine = s.status.line
                    return s.status.line
                }
                send(.ready + .status(line))
            }
        }
    }

    /// A configuration reload starts (SIGHUP). Follow with ``reloaded()``. Any thread.
    func reloading() {
        send(
            .reloading(monotonicMicroseconds: MonotonicClock.nowNanoseconds() / 1000)
                + .status("reloading the configuration")
        )
    }

    /// The reload is finished (applied or refused): `READY=1` and the current status. Any thread.
    func reloaded() {
        let line = state.withLock { s in
            s.sentLine = s.status.line
            return s.status.line
        }
        send(.ready + .status(line))
    }

    /// The daemon is stopping (SIGTERM/SIGINT). Any thread.
    func stopping() {
        state.withLock { $0.ready = false }
        send(.stopping + .status("stopping"))
    }

    /// An accessory's state changed: the states are counted once, before the device loop next
    /// waits, however many changed in this turn. A start or a stop changes every accessory's
    /// state in one turn, and a count per change made it n² (1,000 accessories: 138 → 42 ms of CPU
    /// to READY=1, docs/performance.md, "The cost curve"). Device loop only.
    func accessoryStateChanged(_ registry: AccessoryRegistry) {
        let queue = state.withLock { s in
            defer { s.recountQueued = true }
            return !s.recountQueued
        }
        guard queue else { return }
        registry.loop.perform { [self] in
            state.withLock { $0.recountQueued = false }
            accessoriesChanged(registry)
        }
    }

    /// The accessories' states changed; `registry` is read here. Device loop only.
    func accessoriesChanged(_ registry: AccessoryRegistry) {
        var counts: [DeviceState: Int] = [:]
        for a in registry.accessories { counts[a.state, default: 0] += 1 }
        updateStatus { $0.states = counts }
    }

    /// The number of connected clients changed. Any thread.
    func clientsChanged(_ clients: Int) {
        updateStatus { $0.clients = clients }
    }

    private func updateStatus(_ change: (inout ServiceStatus) -> Void) {
        let line = state.withLock { s -> String? in
            change(&s.status)
            // Before READY=1 the status goes out with it; after STOPPING=1 it says "stopping".
            guard s.ready, s.status.line != s.sentLine else { return nil }
            s.sentLine = s.status.line
            return s.status.line
        }
        if let line { send(.status(line)) }
    }

    /// Sends `message`; the first failure is logged (later ones would repeat it every ping).
    /// Any thread.
    func send(_ message: NotifyMessage) {
        guard let notifier else { return }
        do {
            try notifier.send(message)
        } catch {
            let first = state.withLock { s in
                defer { s.reportedFailure = true }
                return !s.reportedFailure
            }
            if first { log(.warning, "\(error)") }
        }
    }

    // MARK: - Watchdog

    /// Device loop only.
    private func startWatchdog(on loop: IOLoop) {
        guard let watchdog else { return }
        WatchdogPinger(loop: loop, interval: watchdog.pingInterval) { [self] in send(.watchdog) }.start()
    }
}
