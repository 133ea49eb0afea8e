import Glibc
import SystemCalls

/// Why the benchmark stopped: a sentence for stderr.
///
/// Threading: a value. Any thread.
struct BenchError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

/// Monotonic time in nanoseconds (`CLOCK_MONOTONIC`). Any thread.
enum Clock {
    static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

/// A child process the benchmark started: output to files, signalled and reaped by pid only.
///
/// Threading: main thread.
final class Child {
    let pid: pid_t
    let outputPath: String
    private(set) var termination: ChildProcess.Termination?

    init(_ executable: String, _ arguments: [String], outputPath: String) throws {
        self.outputPath = outputPath
        let output = try FileIO.open(outputPath, flags: O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, mode: 0o644)
        pid = try ChildProcess.launch(
            executable,
            arguments: arguments,
            standardOutput: output.rawValue,
            standardError: output.rawValue
        )
        output.close()
    }

    var output: String { FileIO.readText(outputPath) }

    func poll() -> ChildProcess.Termination? {
        if termination == nil, let ended = try? ChildProcess.wait(pid, block: false) { termination = ended }
        return termination
    }

    /// SIGTERM, then up to 10 s for it to end; SIGKILL after that. Returns how it ended.
    @discardableResult
    func stop() -> ChildProcess.Termination? {
        if poll() == nil { try? ChildProcess.signal(pid, SIGTERM) }
        for _ in 0..<2_000 where poll() == nil { usleep(5_000) }
        if poll() == nil {
            try? ChildProcess.signal(pid, SIGKILL)
            termination = try? ChildProcess.wait(pid, block: true)
        }
        return termination
    }
}

/// Small file helpers. Any thread.
enum Files {
    /// The folder holding `path`.
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }

    /// Removes the benchmark's own folder: the files it made there, then the folder.
    static func removeFolder(_ path: String, files: [String]) {
        for name in files { unlink(path + "/" + name) }
        rmdir(path)
    }
}

/// Waits for a condition, polling every millisecond, for at most `seconds`. Main thread.
func waitFor(_ what: String, seconds: Double, _ condition: () throws -> Bool) throws {
    let deadline = Clock.nanoseconds() + UInt64(seconds * 1e9)
    while try !condition() {
        if Clock.nanoseconds() > deadline { throw BenchError("gave up after \(seconds) s waiting for \(what)") }
        usleep(1_000)
    }
}
