import Glibc
import SystemCalls

/// The `accessoryd` child the soak runs: its output goes to a log file; it is watched through
/// `/proc/<pid>` (descriptors, memory) and stopped by its pid.
///
/// Threading: the main thread.
final class DaemonUnderTest {
    let pid: pid_t
    let logPath: String
    private(set) var termination: ChildProcess.Termination?

    init(executable: String, configPath: String, runtimeDirectory: String, logPath: String) throws {
        self.logPath = logPath
        let input = try FileIO.open("/dev/null", flags: O_RDONLY)
        let output = try FileIO.open(logPath, flags: O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, mode: 0o644)
        pid = try ChildProcess.launch(
            executable,
            arguments: ["--config", configPath, "--runtime-dir", runtimeDirectory],
            standardInput: input.rawValue,
            standardOutput: output.rawValue,
            standardError: output.rawValue
        )
        input.close()
        output.close()
    }

    /// Reaps the daemon if it has ended; nil while it runs.
    @discardableResult
    func poll() -> ChildProcess.Termination? {
        if termination == nil, let ended = try? ChildProcess.wait(pid, block: false) { termination = ended }
        return termination
    }

    /// SIGTERM, then up to `seconds` for it to end; SIGKILL after that (reported as nil).
    func stop(seconds: Double) -> ChildProcess.Termination? {
        if poll() == nil { try? ChildProcess.signal(pid, SIGTERM) }
        let deadline = Clock.seconds() + seconds
        while poll() == nil && Clock.seconds() < deadline { usleep(5_000) }
        guard let ended = poll() else {
            try? ChildProcess.signal(pid, SIGKILL)
            termination = try? ChildProcess.wait(pid, block: true)
            return nil
        }
        return ended
    }

    var log: String { FileIO.readText(logPath) }

    /// Lines of the log that are sanitizer reports (ThreadSanitizer, AddressSanitizer,
    /// LeakSanitizer, UndefinedBehaviorSanitizer) or Swift runtime traps.
    var alarmingLogLines: [String] {
        let markers = [
            "WARNING: ThreadSanitizer", "ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
            "Fatal error", "SUMMARY: ",
        ]
        return log.split(separator: "\n").map(String.init).filter { line in markers.contains { line.contains($0) } }
    }

    // MARK: - /proc

    /// The daemon's open descriptors by kind (`socket`, `pty`, `anon_inode:[eventfd]`, …): a pty
    /// slave reopened after a replug has a new number but the same kind.
    func descriptorKinds() -> [String: Int] {
        var kinds: [String: Int] = [:]
        for name in (try? FileIO.listDirectory("/proc/\(pid)/fd")) ?? [] {
            guard let target = try? FileIO.readLink("/proc/\(pid)/fd/\(name)") else { continue }
            kinds[DaemonUnderTest.kind(of: target), default: 0] += 1
        }
        return kinds
    }

    static func kind(of target: String) -> String {
        if target.hasPrefix("/dev/pts/") { return "pty" }
        if target.hasPrefix("socket:") { return "socket" }
        if target.hasPrefix("pipe:") { return "pipe" }
        return target
    }

    /// `VmRSS` in KiB (0 if it cannot be read).
    func residentKiB() -> Int {
        for line in FileIO.readText("/proc/\(pid)/status").split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}
