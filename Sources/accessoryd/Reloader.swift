import AccessoryConfig
import AccessoryCore
import IOLoop

/// SIGHUP: reads the configuration file again and applies what changed, keeping every client
/// connection. A file that does not load or validate is rejected with its reasons logged, and the
/// running configuration stays. Socket and server limits are fixed while running (changing them
/// needs a restart, which the log says).
///
/// Main thread only (it is called between signals); the apply itself runs on the device loop.
final class Reloader {
    private(set) var running: Configuration
    let path: String?
    let simulators: Simulators
    let registry: AccessoryRegistry
    let log: DaemonLog
    /// Told when a reload starts (systemd's RELOADING=1). Main thread.
    var onStart: () -> Void = {}
    /// Runs on the device loop right after a reload was applied (the hot-plug watches follow the
    /// accessories' folders). Device loop.
    var afterApply: @Sendable () -> Void = {}
    /// Told when it is over, applied or rejected (READY=1 and STATUS=). Any thread: an applied
    /// reload finishes on the device loop.
    var onFinish: @Sendable () -> Void = {}

    init(running: Configuration, path: String?, simulators: Simulators, registry: AccessoryRegistry, log: DaemonLog) {
        self.running = running
        self.path = path
        self.simulators = simulators
        self.registry = registry
        self.log = log
    }

    func reload() {
        guard let path else {
            log(.notice, "SIGHUP: running on the embedded default configuration; there is no file to reload")
            return
        }
        onStart()
        guard let next = load(path) else {
            log(.error, "reload of \(path) rejected; the running configuration stays in force")
            onFinish()
            return
        }
        for note in restartOnlyChanges(next) {
            log(.warning, "reload: \(note) changes only with a restart; keeping the running value")
        }
        let devicePaths = simulators.reconcile(with: next.accessories)
        running = next
        let registry = self.registry
        let (afterApply, onFinish) = (self.afterApply, self.onFinish)
        _ = registry.loop.perform {
            registry.reload(next, devicePaths: devicePaths)
            afterApply()
            onFinish()
        }
    }

    /// The new configuration, or nil (every problem logged with its file and line).
    private func load(_ path: String) -> Configuration? {
        let source: ConfigSource
        do {
            source = try ConfigSource.load(path: path, runtimeDirectory: simulators.runtimeDirectory)
        } catch {
            log(.error, "reload: \(error)")
            return nil
        }
        for issue in source.issues {
            log(issue.severity == .error ? .error : .warning, "reload: \(issue)")
        }
        return source.configuration
    }

    private func restartOnlyChanges(_ next: Configuration) -> [String] {
        var notes: [String] = []
        if next.socket != running.socket { notes.append("socket") }
        if next.threads != running.threads { notes.append("threads") }
        let (a, b) = (next.limits, running.limits)
        if a.maxClients != b.maxClients || a.maxLineBytes != b.maxLineBytes {
            notes.append("limits.max_clients/max_line_bytes")
        }
        if a.maxConnectionsPerUID != b.maxConnectionsPerUID { notes.append("limits.max_connections_per_uid") }
        if a.reservedConnections != b.reservedConnections { notes.append("limits.reserved_connections") }
        if a.idleConnectionTimeoutMs != b.idleConnectionTimeoutMs { notes.append("limits.idle_connection_timeout_ms") }
        if next.log != running.log { notes.append("log.level") }
        if next.hotplug != running.hotplug { notes.append("hotplug") }
        return notes
    }
}
