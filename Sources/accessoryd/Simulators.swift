import AccessoryConfig
import Glibc
import SystemCalls

/// The `accessory-sim` child processes that stand in for accessories configured with
/// `simulate:` (the embedded demo default uses them). Each publishes its pty as a symlink in the
/// runtime directory, which the accessory then opens like any serial device; a simulator that
/// has not started yet simply looks like an absent device, retried with back-off.
///
/// Main thread only (started before the loops, stopped after them).
final class Simulators {
    private(set) var children: [(name: String, pid: pid_t, simulation: Simulation)] = []
    let directory: String
    let executable: String
    let log: DaemonLog

    init(directory: String, executable: String, log: DaemonLog) {
        self.directory = directory
        self.executable = executable
        self.log = log
    }

    /// The link path for accessory `name`.
    func linkPath(for name: String) -> String { "\(directory)/\(name)" }

    /// Starts one simulator per simulated accessory. Returns the link paths by accessory name.
    func start(for accessories: [AccessorySettings]) -> [String: String] {
        var paths: [String: String] = [:]
        let simulated = accessories.compactMap { a -> (String, Simulation)? in
            if case .simulate(let s) = a.source { return (a.name, s) }
            return nil
        }
        guard !simulated.isEmpty else { return [:] }
        if access(directory, F_OK) != 0 { mkdir(directory, 0o755) }
        for (name, sim) in simulated {
            let link = linkPath(for: name)
            var args = ["--personality", sim.personality.rawValue, "--name", name, "--link", link]
            for o in sim.options { args += ["--\(o.key.replacingUnderscores())", o.value] }
            do {
                // The simulator's stdout (READY lines) goes to /dev/null: the daemon follows the
                // link instead, exactly as it would follow a udev by-id link.
                let devnull = try FileIO.open("/dev/null", flags: O_WRONLY)
                let pid = try ChildProcess.spawn(executable, arguments: args, standardOutput: devnull.rawValue)
                devnull.close()
                children.append((name, pid, sim))
                paths[name] = link
                log(.info, "started simulator for \(name) (\(sim.personality.rawValue), pid \(pid)) at \(link)")
            } catch {
                log(.error, "cannot start the simulator for \(name) (\(executable)): \(error)")
            }
        }
        return paths
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
        children.removeAll { c in stale.contains { $0.pid == c.pid } }
        let running = Set(children.map(\.name))
        var paths = start(for: accessories.filter { wanted[$0.name] != nil && !running.contains($0.name) })
        for c in children { paths[c.name] = linkPath(for: c.name) }
        return paths
    }

    /// Stops every simulator (SIGTERM, then reaps it, bounded) and removes the directory if empty.
    func stop() {
        stop(children)
        children.removeAll()
        rmdir(directory)
    }

    private func stop(_ children: [(name: String, pid: pid_t, simulation: Simulation)]) {
        for (_, pid, _) in children { try? ChildProcess.signal(pid, SIGTERM) }
        for (name, pid, _) in children {
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
}

extension String {
    fileprivate func replacingUnderscores() -> String {
        String(map { $0 == "_" ? "-" : $0 })
    }
}
