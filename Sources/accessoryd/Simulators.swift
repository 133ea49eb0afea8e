import AccessoryConfig
import AccessoryCore
import Glibc
import SystemCalls

/// The `accessory-sim` child processes that stand in for accessories configured with
/// `simulate:` (the embedded demo default uses them). Each publishes its pty as a symlink in
/// `<runtime>/sim/`, which the accessory then opens like any serial device; a simulator that
/// has not started yet simply looks like an absent device, retried with back-off.
///
/// Supervised: the daemon's main thread, which takes SIGCHLD with its other signals, calls
/// ``reapExited()`` so no child stays a zombie, and ``restartDue()`` at ``nextRestart`` so a
/// simulator that died runs again after the accessory's reconnect back-off. Every child is
/// started with a parent-death signal (``ChildProcess/spawnTied(_:arguments:standardOutput:deathSignal:)``),
/// which Linux ties to the thread that forks: that is why all of this runs on the main thread,
/// which lives as long as the daemon, rather than on a loop thread that stops first at shutdown.
///
/// Main thread only.
final class Simulators {
    /// One simulated accessory: its simulator's pid while one runs, else when it restarts.
    struct Child {
        let name: String
        let simulation: Simulation
        let initialDelayNs: UInt64
        let maximumDelayNs: UInt64
        var pid: pid_t?
        var startedAtNs: UInt64 = 0
        /// The delay before the next restart (doubles while the simulator keeps dying young).
        var delayNs: UInt64
        /// When it is to be started again (set while `pid` is nil).
        var restartAtNs: UInt64?
    }

    private(set) var children: [Child] = []
    let runtimeDirectory: String
    let directory: String
    let executable: String
    let log: DaemonLog

    init(runtimeDirectory: String, executable: String, log: DaemonLog) {
        self.runtimeDirectory = runtimeDirectory
        self.directory = runtimeDirectory + "/sim"
        self.executable = executable
        self.log = log
    }

    /// The link path for accessory `name`.
    func linkPath(for name: String) -> String { "\(directory)/\(name)" }

    /// Creates (mode 0700) or checks the runtime directory and `sim/`: each a real directory
    /// owned by this user and writable by nobody else, or the links could be planted or swapped.
    func prepareDirectories() throws(DirectorySafetyError) {
        let rule = DirectorySafety.privateTo(uid: UserDatabase.effectiveUserID)
        try rule.ensure(runtimeDirectory)
        try rule.ensure(directory)
    }

    /// Starts one simulator per simulated accessory. Returns the link paths by accessory name.
    /// Unsafe directories: logged, and no simulator is started (the accessories stay absent).
    func start(for accessories: [AccessorySettings]) -> [String: String] {
        let simulated = accessories.compactMap { a -> Child? in
            guard case .simulate(let s) = a.source else { return nil }
            let initial = UInt64(max(1, a.reconnect.initialMs)) * 1_000_000
            let maximum = UInt64(max(a.reconnect.initialMs, a.reconnect.maxMs, 1)) * 1_000_000
            return Child(
                name: a.name,
                simulation: s,
                initialDelayNs: initial,
                maximumDelayNs: maximum,
                delayNs: initial
            )
        }
        guard !simulated.isEmpty else { return [:] }
        do {
            try prepareDirectories()
        } catch {
            log(.error, "not starting the simulators: \(error)")
            return [:]
        }
        var paths: [String: String] = [:]
        for var child in simulated {
            launch(&child)
            children.append(child)
            paths[child.name] = linkPath(for: child.name)
        }
        return paths
    }

    /// Starts `child`'s simulator; on failure schedules another try after its back-off.
    private func launch(_ child: inout Child) {
        let link = linkPath(for: child.name)
        let sim = child.simulation
        var args = [
            "--personality", sim.personality.rawValue, "--name", child.name, "--link", link,
            "--lines-socket", Accessory.simulatorLineSocket(forLink: link),
        ]
        for o in sim.options { args += ["--\(o.key.replacingUnderscores())", o.value] }
        do {
            // The simulator's stdout (READY lines) goes to /dev/null: the daemon follows the
            // link instead, exactly as it would follow a udev by-id link.
            let devnull = try FileIO.open("/dev/null", flags: O_WRONLY)
            let pid = try ChildProcess.spawnTied(executable, arguments: args, standardOutput: devnull.rawValue)
            devnull.close()
            child.pid = pid
            child.startedAtNs = MonotonicClock.nowNanoseconds()
            child.restartAtNs = nil
            log(.info, "started simulator for \(child.name) (\(sim.personality.rawValue), pid \(pid)) at \(link)")
        } catch {
            child.pid = nil
            child.restartAtNs = MonotonicClock.nowNanoseconds() + child.delayNs
            log(
                .error,
                "cannot start the simulator for \(child.name) (\(executable)): \(error); "
                    + "trying again in \(child.delayNs / 1_000_000) ms"
            )
            child.delayNs = min(child.maximumDelayNs, child.delayNs * 2)
        }
    }

    /// Reaps every simulator that has ended (after SIGCHLD) and schedules its restart: after the
    /// accessory's `reconnect.initial_ms`, doubling up to `max_ms` while it keeps dying within
    /// that maximum of its start.
    func reapExited() {
        let now = MonotonicClock.nowNanoseconds()
        for i in children.indices {
            guard let pid = children[i].pid, let ended = try? ChildProcess.wait(pid, block: false) else { continue }
            if now - children[i].startedAtNs >= children[i].maximumDelayNs {
                children[i].delayNs = children[i].initialDelayNs
            }
            let delay = children[i].delayNs
            children[i].pid = nil
            // Its link names a pty that is gone, and whose number the next pty anyone opens
            // may get: the accessory must find no link until the new simulator makes one (a
            // test once saw the accessory open a stranger's pty through it, and stay there).
            try? FileIO.unlink(linkPath(for: children[i].name))
            children[i].restartAtNs = now + delay
            children[i].delayNs = min(children[i].maximumDelayNs, delay * 2)
            log(
                .warning,
                "simulator for \(children[i].name) (pid \(pid)) ended (\(Self.describe(ended))); "
                    + "restarting it in \(delay / 1_000_000) ms"
            )
        }
    }

    /// When the next restart is due (monotonic ns), if one is scheduled.
    var nextRestart: UInt64? { children.compactMap(\.restartAtNs).min() }

    /// Starts the simulators whose restart is due.
    func restartDue() {
        let now = MonotonicClock.nowNanoseconds()
        for i in children.indices {
            guard children[i].pid == nil, let at = children[i].restartAtNs, at <= now else { continue }
            launch(&children[i])
        }
    }

    /// After a reload: stops the simulators whose accessory is gone or simulates something else
    /// now, starts the missing ones. Returns the link paths of every simulated accessory.
    func reconcile(with accessories: [AccessorySettings]) -> [String: String] {
        var wanted: [String: Simulation] = [:]
        for a in accessories {
            if case .simulate(let s) = a.source { wanted[a.name] = s }
        }
        let stale = children.filter { wanted[$0.name] != $0.simulation }
        stop(stale)
        children.removeAll { c in stale.contains { $0.name == c.name } }
        let running = Set(children.map(\.name))
        var paths = start(for: accessories.filter { wanted[$0.name] != nil && !running.contains($0.name) })
        for c in children { paths[c.name] = linkPath(for: c.name) }
        return paths
    }

    /// Stops every simulator (SIGTERM, then reaps it, bounded) and removes `sim/` if empty.
    func stop() {
        stop(children)
        children.removeAll()
        try? FileIO.removeDirectory(directory)
    }

    private func stop(_ children: [Child]) {
        let running = children.compactMap { c in c.pid.map { (c.name, $0) } }
        for (_, pid) in running { try? ChildProcess.signal(pid, SIGTERM) }
        for (name, pid) in running {
            var reaped = false
            for _ in 0..<200 where !reaped {
                if (try? ChildProcess.wait(pid, block: false)) != nil { reaped = true } else { usleep(10_000) }
            }
            if !reaped {
                log(.warning, "simulator for \(name) (pid \(pid)) ignored SIGTERM; killing it")
                try? ChildProcess.signal(pid, SIGKILL)
                _ = try? ChildProcess.wait(pid, block: true)
            }
        }
    }

    static func describe(_ t: ChildProcess.Termination) -> String {
        switch t {
        case .exited(let code): "exit status \(code)"
        case .signalled(let signal): "killed by signal \(signal)"
        }
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String {
        String(map { $0 == "_" ? "-" : $0 })
    }
}
