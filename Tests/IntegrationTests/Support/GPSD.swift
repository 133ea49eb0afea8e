import AccessoryTestSupport
import ControlProtocol
import Glibc
import JSONCodec
import SystemCalls

/// A gpsd of the test's own (Debian's `gpsd`, never the system's instance) reading one tty, and
/// a `gpspipe -w` watching it: gpsd listens on a loopback port that was free, keeps its control
/// socket and pid file in the test's folder, and runs in the foreground (`-N`) as this test's
/// child, stopped by pid. What gpspipe prints (one JSON report a line) is read from its file.
///
/// Threading: the test's thread.
final class GPSDRun {
    /// Why the tests that need gpsd cannot run here, nil when they can.
    static let missing = ExternalProgram.missing("gpsd", "gpspipe")

    let port: Int
    let gpsd: ChildRun
    private(set) var pipe: ChildRun?
    private var finished = false

    /// Starts `gpsd -N -n -S <port> -F <socket> -P <pid file> <device>` and, once it listens,
    /// `gpspipe -w 127.0.0.1:<port>`.
    init(device: String, in directory: TemporaryDirectory) throws {
        if let missing = GPSDRun.missing { throw HarnessError(missing) }
        port = try LoopbackPorts.unused()
        gpsd = try ChildRun(
            label: "gpsd",
            executable: ExternalProgram.locate("gpsd"),
            arguments: [
                "-N", "-n", "-S", String(port), "-F", directory.file("gpsd.sock"), "-P", directory.file("gpsd.pid"),
                device,
            ],
            stdoutPath: directory.file("gpsd.log"),
            stderrPath: directory.file("gpsd.log")
        )
        do {
            let deadline = Deadline(seconds: 15)
            while !LoopbackPorts.listening().contains(port) {
                if let ended = gpsd.poll() {
                    throw HarnessError("gpsd ended (\(ended)) before listening: \(gpsd.stdout)")
                }
                if deadline.hasPassed { throw HarnessError("gpsd did not listen on port \(port) within 15 s") }
                usleep(10_000)
            }
            pipe = try ChildRun(
                label: "gpspipe",
                executable: ExternalProgram.locate("gpspipe"),
                arguments: ["-w", "127.0.0.1:\(port)"],
                stdoutPath: directory.file("gpspipe.out"),
                stderrPath: directory.file("gpspipe.err")
            )
        } catch {
            finish()
            throw error
        }
    }

    /// Every JSON report gpspipe has printed so far, in order (a last, unfinished line is left out).
    /// Its lines end with `\r\n`: they are cut as bytes (as a `String`, `\r\n` is one character).
    var reports: [JSONValue] {
        guard let pipe else { return [] }
        let bytes = Array(pipe.stdout.utf8)
        let complete = bytes[..<((bytes.lastIndex(of: 0x0A) ?? -1) + 1)]
        return complete.split(separator: 0x0A).compactMap { line in
            try? JSONParser.parse(line.last == 0x0D ? line.dropLast() : line)
        }
    }

    /// The reports of class `TPV` with a 2D or 3D fix, in order.
    var fixes: [GPSFix] { reports.compactMap(GPSFix.init(report:)) }

    /// Waits (bounded) until more than `count` fixes have been reported; returns all of them.
    /// `while` is called between looks (the test's other traffic); it may throw to stop the wait.
    func waitForFixes(moreThan count: Int, seconds: Double, while work: () throws -> Void = {}) throws -> [GPSFix] {
        let deadline = Deadline(seconds: seconds)
        while true {
            let now = fixes
            if now.count > count { return now }
            if let ended = gpsd.poll() { throw HarnessError("gpsd ended (\(ended)): \(gpsd.stdout)") }
            if let ended = pipe?.poll() { throw HarnessError("gpspipe ended (\(ended)): \(pipe?.stderr ?? "")") }
            if deadline.hasPassed {
                throw HarnessError(
                    "gpsd reported \(now.count) fixes in \(seconds) s, more than \(count) awaited; gpspipe printed:\n"
                        + (pipe?.stdout.suffix(2_000) ?? "") + "\ngpsd's log:\n" + gpsd.stdout.suffix(2_000)
                )
            }
            try work()
            usleep(20_000)
        }
    }

    /// The terminals gpsd has open (`/dev/pts/N`), from its descriptors in /proc.
    var openTerminals: [String] {
        guard let folder = opendir("/proc/\(gpsd.pid)/fd") else { return [] }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let target = try? FileIO.readLink("/proc/\(gpsd.pid)/fd/\(name)"), target.hasPrefix("/dev/pts/") {
                names.append(target)
            }
        }
        return names
    }

    /// Stops gpspipe and gpsd (SIGTERM, then SIGKILL), by pid. Idempotent.
    func finish() {
        guard !finished else { return }
        finished = true
        for child in [pipe, gpsd].compactMap({ $0 }) where child.terminate(seconds: 5) == nil { child.kill() }
    }

    deinit { finish() }
}

/// One `TPV` report with a fix, as gpsd computed it from the sentences it read.
///
/// Threading: a value. Any thread.
struct GPSFix: CustomStringConvertible {
    /// 2 (2D) or 3 (3D).
    let mode: Int
    let latitude: Double
    let longitude: Double
    /// ISO 8601, as gpsd writes it.
    let time: String

    init?(report: JSONValue) {
        guard report["class"]?.stringValue == "TPV", let mode = report["mode"]?.intValue, mode >= 2,
            let latitude = report["lat"]?.doubleValue, let longitude = report["lon"]?.doubleValue
        else { return nil }
        self.mode = mode
        self.latitude = latitude
        self.longitude = longitude
        time = report["time"]?.stringValue ?? ""
    }

    /// Whether this is the `nmea` simulator's position: 52°31.2000'N, and 13°24.3000'E drifting
    /// east by 0.001' a fix (so within a minute of arc for the first 1000 fixes), on its date
    /// (a fix from a `GGA` before gpsd has seen an `RMC` has no date, hence no time).
    var isSimulatorPosition: Bool {
        abs(latitude - (52 + 31.2 / 60)) < 1e-6 && longitude >= 13 + 24.3 / 60 - 1e-6
            && longitude < 13 + 25.3 / 60 && (time.isEmpty || time.hasPrefix("2024-06-01T"))
    }

    var description: String { "mode \(mode) \(latitude),\(longitude) at \(time)" }
}

/// TCP ports on the loopback interface, from /proc/net/tcp and tcp6.
///
/// Threading: stateless. Any thread.
enum LoopbackPorts {
    /// The local ports of sockets in any state (listening, connected, closing).
    static func inUse() -> Set<Int> { ports { _ in true } }

    /// The local ports of listening sockets.
    static func listening() -> Set<Int> { ports { $0 == "0A" } }

    /// A port from 20000 to 59999 no socket uses now (a random start, so that tests running at
    /// once seldom pick the same one; gpsd fails to listen, and the test says so, if one does).
    static func unused() throws -> Int {
        let taken = inUse()
        let start = 20_000 + Int(getpid() % 10_000) * 4 + Int.random(in: 0..<4)
        for offset in 0..<40_000 {
            let port = 20_000 + (start - 20_000 + offset) % 40_000
            if !taken.contains(port) { return port }
        }
        throw HarnessError("no unused TCP port from 20000 to 59999")
    }

    private static func ports(_ state: (Substring) -> Bool) -> Set<Int> {
        var out: Set<Int> = []
        for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
            for line in FileIO.readText(file).split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                // sl, local_address (hex address:hex port), rem_address, st, …
                guard fields.count > 3, state(fields[3]), let colon = fields[1].lastIndex(of: ":"),
                    let port = Int(fields[1][fields[1].index(after: colon)...], radix: 16)
                else { continue }
                out.insert(port)
            }
        }
        return out
    }
}
