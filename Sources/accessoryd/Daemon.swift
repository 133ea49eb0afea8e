import AccessoryConfig
import AccessoryCore
import AccessoryVersion
import ControlProtocol
import ControlServer
import Glibc
import IOLoop
import SystemCalls

/// The running daemon: the device loop (accessories), the control loop (socket and clients),
/// the simulators of the embedded default, and the main thread waiting for signals.
///
/// Main thread only (``run()`` blocks it until SIGTERM/SIGINT).
final class Daemon {
    /// What `daemon.status` and the start-up log line report (the one version, as --version).
    static let version = AccessoryVersion.number

    let configuration: Configuration
    let configSource: ConfigSource
    let runtimeDirectory: String
    let simulatorPath: String
    let environment: [String: String]
    let log: DaemonLog

    init(
        configuration: Configuration,
        configSource: ConfigSource,
        runtimeDirectory: String,
        simulatorPath: String,
        environment: [String: String]
    ) {
        self.configuration = configuration
        self.configSource = configSource
        self.runtimeDirectory = runtimeDirectory
        self.simulatorPath = simulatorPath
        self.environment = environment
        self.log = DaemonLog(minimum: configuration.log.level, environment: environment)
    }

    /// Runs until a stop signal; returns the exit code.
    func run() -> Int32 {
        // Signals are taken synchronously by this thread; block them before any thread starts so
        // that every thread inherits the mask. SIGCHLD too: this thread reaps and restarts the
        // simulators (Simulators.swift says why here). SIGPIPE is ignored: a vanished client is
        // an EPIPE.
        SignalWait.block(Self.mainThreadSignals)
        signal(SIGPIPE, SIG_IGN)

        // The runtime directory (the embedded default's socket) and sim/ (the simulators' links):
        // created 0700 or checked, whoever made them; unsafe ones stop the daemon here.
        let simulators = Simulators(runtimeDirectory: runtimeDirectory, executable: simulatorPath, log: log)
        let simulated = configuration.accessories.contains { if case .simulate = $0.source { true } else { false } }
        do {
            let rule = DirectorySafety.privateTo(uid: UserDatabase.effectiveUserID)
            if configSource.path == nil { try rule.ensure(runtimeDirectory) }
            if simulated { try simulators.prepareDirectories() }
        } catch {
            log(.error, "not starting: \(error)")
            return 1
        }
        // systemd: notifications, watchdog, socket activation (ServiceManager.swift).
        let service = ServiceManager(environment: environment, log: log)
        let listening: ListeningSocket
        let descriptorStore: SystemdDescriptorStore?
        do {
            let inherited = try service.inheritedDescriptors()
            descriptorStore = service.descriptorStore(kept: inherited.keptDevices)
            if let fd = inherited.listeningFD {
                listening = try ListeningSocket(listeningFD: fd)
            } else {
                listening = try makeListeningSocket()
            }
        } catch {
            log(.error, "cannot listen: \(error)")
            return 1
        }

        let devicePaths = simulators.start(for: configuration.accessories)

        let deviceLoop: IOLoop
        let controlLoop: IOLoop
        do {
            deviceLoop = try IOLoop.spawn(name: "accessoryd-dev")
            switch configuration.threads.control {
            case .own: controlLoop = try IOLoop.spawn(name: "accessoryd-ctl")
            case .shared: controlLoop = deviceLoop
            }
        } catch {
            log(.error, "cannot start the event loops: \(error)")
            simulators.stop()
            return 1
        }
        let log = self.log
        let registry = AccessoryRegistry(
            loop: deviceLoop,
            configuration: configuration,
            devicePaths: devicePaths,
            descriptorStore: descriptorStore
        ) { level, message in log(level, message) }
        let handler = ClientCountingHandler(RegistryHandler(registry: registry), service: service)
        registry.onStateChange = { [unowned registry] _ in service.accessoryStateChanged(registry) }
        TestHooks.install(on: deviceLoop, environment: environment, log: log)
        let server = ControlServer(
            loop: controlLoop,
            socket: listening,
            limits: ControlServerLimits(
                maxClients: configuration.limits.maxClients,
                maxConnectionsPerUID: configuration.limits.maxConnectionsPerUID,
                reservedConnections: configuration.limits.reservedConnections,
                idleConnectionTimeout: .milliseconds(configuration.limits.idleConnectionTimeoutMs),
                // The registry holds a client to as many unanswered requests; the answers its
                // batches and notifications wait for are as many.
                maxRoutedReplies: configuration.limits.maxRequestsPerClient,
                maxLineBytes: configuration.limits.maxLineBytes,
                maxOutboundBytes: configuration.limits.clientOutboundBytes
            ),
            handler: handler,
            logger: ControlServerLogger(minimumLevel: .info) { level, message in
                log(Daemon.logLevel(level), message)
            }
        )
        let started = MonotonicClock.nowNanoseconds()
        registry.daemonStatus = { [weak server] in
            var figures: DaemonStatusResult.Server?
            if let s = server?.statistics {
                figures = DaemonStatusResult.Server(
                    clients: Int64(s.clients),
                    clientsAccepted: Int64(s.acceptedTotal),
                    clientsRejected: Int64(s.rejectedOverLimit),
                    requestsDecoded: Int64(s.requestsDecoded),
                    decodeErrors: Int64(s.decodeErrors),
                    inputDeferrals: Int64(s.inputDeferrals),
                    clientsTimedOut: Int64(s.disconnectedIdle),
                    clientsAcceptedInReserve: Int64(s.acceptedInReserve),
                    batchesRefused: Int64(s.batchesRefused),
                    repliesTooLarge: Int64(s.repliesTooLarge)
                )
            }
            let uptime = (MonotonicClock.nowNanoseconds() - started) / 1_000_000_000
            let process = DaemonStatusResult.Process(pid: Int64(getpid()), uptimeS: Int64(uptime), server: figures)
            return DaemonStatusResult(version: Daemon.version, process: process)
        }
        // Watch the device folders, open the accessories, then start the udev monitor.
        let hotplug = HotplugService(
            loop: deviceLoop,
            registry: registry,
            settings: configuration.hotplug,
            log: log,
            udevFailure: TestHooks.udevFailure(environment: environment)
        )
        // Both ways out: the hot-plug sources and the accessories are closed on the device loop
        // (their fds live there), queued requests answered; then the loops and the simulators.
        func closeDevices() {
            _ = deviceLoop.perform {
                hotplug.stop()
                registry.shutdown()
            }
        }
        func stopLoopsAndSimulators() {
            if controlLoop !== deviceLoop { controlLoop.shutdown() }
            deviceLoop.shutdown()
            simulators.stop()
            // The accessories told their trace writers to finish; here, off the loops, is where
            // waiting for a disk is allowed, and bounded.
            if !AccessoryRegistry.awaitTraceFiles(within: .seconds(2)) {
                log(
                    .warning,
                    "trace: a writer did not finish within 2 s (is its disk stalled?); the last records may be missing"
                )
            }
        }
        // The main thread sleeps until the device loop has opened the accessories (no polling:
        // a 1 ms poll cost a wake-up per millisecond of start-up and up to 1 ms of latency).
        let hotplugStart = SignallingLock<(done: Bool, failure: String?)>((false, nil))
        let runtimeDirectory = self.runtimeDirectory
        deviceLoop.perform {
            registry.viewRuntimeDirectory = runtimeDirectory  // Relative view paths: <runtime>/tty/.
            let failure = hotplug.start()
            hotplugStart.withLock { state in
                state = (true, failure)
                return ((), true)
            }
        }
        if let failure = hotplugStart.wait(until: { $0.done }, then: { $0.failure }) {
            log(.error, "not starting: \(failure)")
            closeDevices()
            stopLoopsAndSimulators()
            return 1
        }
        server.start()
        // Start-up has opened what it can: what the store handed back and nothing took is closed.
        if let descriptorStore { deviceLoop.perform { descriptorStore.closeUnclaimed() } }
        service.announceReady(registry: registry, controlLoop: controlLoop)
        log(
            .info,
            "accessoryd \(Daemon.version) serving \(configuration.accessories.count) accessories on \(server.socketName) (config: \(configSource.name))"
        )

        let reloader = Reloader(
            running: configuration,
            path: configSource.path,
            simulators: simulators,
            registry: registry,
            log: log
        )
        reloader.onStart = { service.reloading() }
        reloader.afterApply = { hotplug.updateWatches() }
        reloader.onFinish = { service.reloaded() }
        let received = waitForStopSignal(reloader: reloader, simulators: simulators)
        service.stopping()
        log(.info, "received signal \(received): stopping")

        // Graceful stop: no new clients; every request still queued is answered (device
        // unavailable: the daemon is stopping); the answers are flushed, bounded; then the loops.
        let done = Locked(false)
        server.beginShutdown(flushTimeout: .milliseconds(500)) { done.withLock { $0 = true } }
        closeDevices()
        for _ in 0..<300 where !done.withLock({ $0 }) { usleep(10_000) }
        stopLoopsAndSimulators()
        log(.info, "stopped")
        return 0
    }

    private func makeListeningSocket() throws(ControlServerError) -> ListeningSocket {
        let s = configuration.socket
        return try ListeningSocket(path: s.path, mode: s.mode, group: s.group.map(Daemon.socketGroup))
    }

    private static func socketGroup(_ p: Principal) -> SocketGroup {
        switch p {
        case .name(let n): .name(n)
        case .id(let id): .id(id)
        }
    }

    /// The signals the main thread takes: stop, reload, and a child's exit.
    static let mainThreadSignals: [CInt] = [SIGTERM, SIGINT, SIGHUP, SIGCHLD]

    /// Waits for SIGTERM or SIGINT. Meanwhile a SIGHUP reloads the configuration, a SIGCHLD reaps
    /// the simulators that ended, and the wait ends early when a simulator's restart is due.
    private func waitForStopSignal(reloader: Reloader, simulators: Simulators) -> CInt {
        while true {
            let timeout = simulators.nextRestart.map { at in
                let now = MonotonicClock.nowNanoseconds()
                return at > now ? at - now : 0
            }
            let received: CInt?
            do {
                received = try SignalWait.next(of: Self.mainThreadSignals, timeoutNanoseconds: timeout)
            } catch {
                log(.error, "waiting for signals failed: \(error)")
                usleep(100_000)
                continue
            }
            switch received {
            case nil:
                simulators.restartDue()
            case SIGCHLD?:
                simulators.reapExited()
                simulators.restartDue()
            case SIGHUP?:
                log(.notice, "SIGHUP: reloading the configuration")
                reloader.reload()
            case let signal?:
                return signal
            }
        }
    }

    static func logLevel(_ l: ControlServerLogger.Level) -> LogLevel {
        switch l {
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        }
    }
}
