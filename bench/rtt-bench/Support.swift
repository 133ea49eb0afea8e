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

/// The benchmark's command line: `rtt-bench [--count N] [--rounds R] [--warmup N] [--products DIR]`.
///
/// Threading: a value. Main thread.
struct Options {
    /// Requests per path, split evenly over the rounds.
    var count = 20_000
    var rounds = 5
    /// Unrecorded requests per path before the first round.
    var warmup = 1_000
    /// The folder with `accessoryd` and `accessory-sim` (default: the folder of this executable).
    var products: String?

    static let usage = """
        usage: rtt-bench [--count N] [--rounds R] [--warmup N] [--products DIR]
          Round-trip latency of a 16-byte line exchange with an echo accessory (accessory-sim),
          done directly on the pty and through accessoryd (`transact`), interleaved in rounds.
          --count N      requests per path (default 20000)
          --rounds R     rounds; the paths alternate which goes first (default 5)
          --warmup N     unrecorded requests per path before measuring (default 1000)
          --products DIR where accessoryd and accessory-sim are
                         (default: next to rtt-bench; e.g. `swift build -c release --show-bin-path`)
        """

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var rest = arguments[...]
        func number(_ flag: String) throws -> Int {
            guard let text = rest.popFirst(), let value = Int(text), value >= 0 else {
                throw BenchError("\(flag) needs a non-negative integer\n\(usage)")
            }
            return value
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--count": options.count = try number(flag)
            case "--rounds": options.rounds = max(1, try number(flag))
            case "--warmup": options.warmup = try number(flag)
            case "--products":
                guard let folder = rest.popFirst() else { throw BenchError("--products needs a folder\n\(usage)") }
                options.products = folder
            case "-h", "--help":
                print(usage)
                exit(0)
            default: throw BenchError("unknown argument \(flag)\n\(usage)")
            }
        }
        if options.count < options.rounds { throw BenchError("--count must be at least --rounds") }
        return options
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

    var output: String { Files.read(outputPath) }

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
    static func read(_ path: String) -> String {
        guard let fd = try? FileIO.open(path, flags: O_RDONLY) else { return "" }
        var bytes: [UInt8] = []
        while let chunk = try? FileIO.read(fd.rawValue, max: 65_536), !chunk.isEmpty { bytes += chunk }
        fd.close()
        return String(decoding: bytes, as: UTF8.self)
    }

    static func write(_ path: String, _ text: String) throws {
        let fd = try FileIO.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644)
        try FileIO.writeAll(fd.rawValue, Array(text.utf8))
        fd.close()
    }

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
