import AccessoryTestSupport
import Glibc
import SystemCalls

/// A child process this test started: its stdout and stderr go to files, it is signalled and
/// reaped by its pid only (never by name).
///
/// Threading: the test's thread (the one that started it).
final class ChildRun {
    let label: String
    let pid: pid_t
    let stdoutPath: String
    let stderrPath: String
    private(set) var termination: ChildProcess.Termination?

    /// `environment`: extra `NAME=value` variables on top of this process's (nil: inherit as is).
    init(
        label: String,
        executable: String,
        arguments: [String],
        environment: [String: String]? = nil,
        stdoutPath: String,
        stderrPath: String,
        passing descriptors: [CInt] = []
    ) throws {
        self.label = label
        self.stdoutPath = stdoutPath
        self.stderrPath = stderrPath
        let input = try FileIO.open("/dev/null", flags: O_RDONLY)
        // Appending, so that stdout and stderr may share one file without overwriting each other.
        let output = try FileIO.open(stdoutPath, flags: O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, mode: 0o644)
        let errors = try FileIO.open(stderrPath, flags: O_WRONLY | O_CREAT | O_APPEND, mode: 0o644)
        pid = try ChildProcess.launch(
            executable,
            arguments: arguments,
            environment: environment.map(ChildRun.inheritedEnvironment(adding:)),
            standardInput: input.rawValue,
            standardOutput: output.rawValue,
            standardError: errors.rawValue,
            passing: descriptors
        )
        input.close()
        output.close()
        errors.close()
    }

    /// This process's environment with `extra` set (replacing variables of the same name).
    static func inheritedEnvironment(adding extra: [String: String]) -> [String] {
        var out: [String] = []
        var p = environ
        while let entry = p.pointee {
            let text = String(cString: entry)
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if extra[name] == nil { out.append(text) }
            p += 1
        }
        return out + extra.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    var stdout: String { TemporaryDirectory.contents(of: stdoutPath) }
    var stderr: String { TemporaryDirectory.contents(of: stderrPath) }

    /// Reaps the child if it has ended; returns how it ended, or nil while it runs.
    @discardableResult
    func poll() -> ChildProcess.Termination? {
        if termination == nil, let ended = try? ChildProcess.wait(pid, block: false) { termination = ended }
        return termination
    }

    var isRunning: Bool { poll() == nil }

    /// Waits (bounded) for the child to end by itself.
    func wait(seconds: Double) -> ChildProcess.Termination? {
        let deadline = Deadline(seconds: seconds)
        while poll() == nil && !deadline.hasPassed { usleep(2_000) }
        return poll()
    }

    /// Sends SIGTERM and waits (bounded) for the child to end. Returns how it ended, or nil if it
    /// is still running after `seconds`.
    /// `signalling` is the process to send it to when that is not the child itself (a program
    /// run under `strace`, whose exit ends the child).
    func terminate(seconds: Double = 10, signalling target: pid_t? = nil) -> ChildProcess.Termination? {
        if poll() == nil { try? ChildProcess.signal(target ?? pid, SIGTERM) }
        return wait(seconds: seconds)
    }

    /// The pids of this child's own children (`/proc/<pid>/task/<pid>/children`).
    var children: [pid_t] {
        TemporaryDirectory.contents(of: "/proc/\(pid)/task/\(pid)/children")
            .split(whereSeparator: { $0 == " " || $0 == "\n" })
            .compactMap { pid_t($0) }
    }

    /// Last resort: SIGKILL and reap (no-op if it has already been reaped).
    func kill() {
        guard poll() == nil else { return }
        try? ChildProcess.signal(pid, SIGKILL)
        if let ended = try? ChildProcess.wait(pid, block: true) { termination = ended }
    }
}

/// An `accessory-sim` child serving one simulated accessory on a pty, published as a symbolic
/// link (`--link`) in the test's folder.
///
/// Threading: the test's thread.
final class SimulatorRun {
    let name: String
    let link: String
    let child: ChildRun

    /// Starts it and waits (bounded) for its `READY <name> <path>` line.
    init(name: String, arguments: [String], in directory: TemporaryDirectory) throws {
        self.name = name
        link = directory.file(name)
        child = try ChildRun(
            label: "accessory-sim \(name)",
            executable: try BuiltProducts.simulator(),
            arguments: ["--name", name, "--link", link] + arguments,
            stdoutPath: directory.file("sim-\(name).out"),
            stderrPath: directory.file("sim-\(name).err")
        )
        let deadline = Deadline(seconds: 15)
        while !child.stdout.contains("READY \(name) ") {
            if let ended = child.poll() {
                throw HarnessError("accessory-sim \(name) ended (\(ended)) before READY: \(child.stderr)")
            }
            if deadline.hasPassed {
                child.kill()
                throw HarnessError("accessory-sim \(name) printed no READY line within 15 s: \(child.stderr)")
            }
            usleep(2_000)
        }
    }
}

/// An `accessoryd` child started on a configuration file; its stdout and stderr (the log) go to
/// `accessoryd.log` in the test's folder.
///
/// Threading: the test's thread.
final class DaemonRun {
    let child: ChildRun
    let socketPath: String

    /// Starts the daemon (with `environment` added to ours) and, if `waitForSocket`, waits
    /// (bounded) until its socket accepts a connection. `launcher` runs it (e.g. `setpriv
    /// --reuid=65534 …`, `prlimit --nofile=…`); `runtimeDirectory` is the folder's path unless given.
    /// A nil `configPath` passes no `--config` (the system file or the embedded default);
    /// `extraArguments` go after the others.
    init(
        configPath: String?,
        socketPath: String,
        in directory: TemporaryDirectory,
        environment: [String: String]? = nil,
        waitForSocket: Bool = true,
        runtimeDirectory: String? = nil,
        launcher: [String] = [],
        extraArguments: [String] = [],
        passing descriptors: [CInt] = []
    ) throws {
        self.socketPath = socketPath
        let daemon = try BuiltProducts.daemon()
        let arguments =
            (configPath.map { ["--config", $0] } ?? []) + ["--runtime-dir", runtimeDirectory ?? directory.path]
            + extraArguments
        child = try ChildRun(
            label: "accessoryd",
            executable: launcher.first ?? daemon,
            arguments: launcher.isEmpty ? arguments : Array(launcher.dropFirst()) + [daemon] + arguments,
            environment: environment,
            stdoutPath: directory.file("accessoryd.log"),
            stderrPath: directory.file("accessoryd.log"),
            passing: descriptors
        )
        guard waitForSocket else { return }
        let deadline = Deadline(seconds: 15)
        while true {
            if let fd = try? Socket.connectedUnixStream(to: .path(socketPath)) {
                fd.close()
                return
            }
            if let ended = child.poll() {
                throw HarnessError("accessoryd ended (\(ended)) before listening; its log:\n\(log)")
            }
            if deadline.hasPassed {
                child.kill()
                throw HarnessError("accessoryd did not listen on \(socketPath) within 15 s; its log:\n\(log)")
            }
            usleep(5_000)
        }
    }

    /// A daemon started some other way (e.g. exec'd by `systemd-socket-activate`, which keeps the
    /// pid), serving on `socketPath`.
    init(adopting child: ChildRun, socketPath: String) {
        self.child = child
        self.socketPath = socketPath
    }

    var pid: pid_t { child.pid }
    var log: String { child.stdout }
}
