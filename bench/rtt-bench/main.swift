// rtt-bench: the round-trip time of a 16-byte exchange with an echo accessory, done directly on
// its pty and through accessoryd (`transact`), measured in the same run, interleaved in rounds.
//
//   swift build -c release --product accessoryd && swift build -c release --product accessory-sim \
//     && swift build -c release --product rtt-bench && .build/release/rtt-bench
//
// Threading: everything runs on the main thread; the daemon and the simulators are child
// processes, started and stopped by pid.
import ControlProtocol
import Glibc
import SystemCalls

/// Latency figures of one path. Threading: a value. Any thread.
struct Summary {
    let name: String
    let samples: [UInt64]
    /// Time spent in this path's measured rounds, in nanoseconds.
    let busyNanoseconds: UInt64

    func percentile(_ p: Double) -> Double {
        let sorted = samples.sorted()
        let index = min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))
        return Double(sorted[index]) / 1_000
    }

    var requestsPerSecond: Double { Double(samples.count) / (Double(busyNanoseconds) / 1e9) }
}

func format(_ value: Double, _ decimals: Int = 1) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let have = text.distance(from: dot, to: text.endIndex) - 1
        if have < decimals { text += String(repeating: "0", count: decimals - have) }
    }
    return decimals == 0 ? String(Int(rounded)) : text
}

func startSimulator(_ executable: String, name: String, folder: String) throws -> (Child, String) {
    let link = folder + "/" + name
    let child = try Child(
        executable,
        ["--personality", "echo", "--name", name, "--link", link],
        outputPath: folder + "/sim-\(name).log"
    )
    try waitFor("accessory-sim \(name) to print READY", seconds: 15) {
        if let ended = child.poll() { throw BenchError("accessory-sim \(name) ended (\(ended)): \(child.output)") }
        return child.output.contains("READY \(name) ")
    }
    return (child, link)
}

func measure(_ options: Options) throws {
    let me = (try? FileIO.readLink("/proc/self/exe")) ?? CommandLine.arguments[0]
    let products = options.products ?? Files.folder(of: me)
    let daemonExecutable = products + "/accessoryd"
    let simulatorExecutable = products + "/accessory-sim"
    for path in [daemonExecutable, simulatorExecutable] where access(path, X_OK) != 0 {
        throw BenchError(
            "\(path) is not built. Build the release products first: swift build -c release --product accessoryd; "
                + "swift build -c release --product accessory-sim (or pass --products DIR)"
        )
    }
    let folder = try FileIO.makeTemporaryDirectory(prefix: "/tmp/rtt-bench-")
    var children: [Child] = []
    defer {
        for child in children.reversed() { child.stop() }
        Files.removeFolder(
            folder,
            files: [
                "direct", "daemon", "sim-direct.log", "sim-daemon.log", "accessoryd.yaml", "accessoryd.log", "d.sock",
            ]
        )
    }

    let (directSim, directLink) = try startSimulator(simulatorExecutable, name: "direct", folder: folder)
    children.append(directSim)
    let (daemonSim, daemonLink) = try startSimulator(simulatorExecutable, name: "daemon", folder: folder)
    children.append(daemonSim)

    let socketPath = folder + "/d.sock"
    let configPath = folder + "/accessoryd.yaml"
    try Files.write(
        configPath,
        """
        socket: {path: \(socketPath)}
        log: {level: warning}
        accessories:
          - name: echo
            path: \(daemonLink)
            framing: {type: line, delimiter: "\\n"}

        """
    )
    let daemon = try Child(
        daemonExecutable,
        ["--config", configPath, "--runtime-dir", folder],
        outputPath: folder + "/accessoryd.log"
    )
    children.append(daemon)
    try waitFor("accessoryd to listen on \(socketPath)", seconds: 15) {
        if let ended = daemon.poll() { throw BenchError("accessoryd ended (\(ended)): \(daemon.output)") }
        guard let fd = try? Socket.connectedUnixStream(to: .path(socketPath)) else { return false }
        fd.close()
        return true
    }
    let viaDaemon = try DaemonPath(socket: socketPath, device: "echo")
    var setupID = -1
    try waitFor("the echo accessory to be ready", seconds: 15) {
        setupID -= 1
        let list = try viaDaemon.call(id: setupID, method: "devices.list")
        return list.result?["devices"]?.arrayValue?.first?["state"] == "ready"
    }
    let direct = try DirectPath(slave: directLink)

    let paths: [any RoundTripPath] = [direct, viaDaemon]
    var sequence = 0
    for path in paths {
        for _ in 0..<options.warmup {
            sequence += 1
            _ = try path.exchange(sequence)
        }
    }
    var samples: [[UInt64]] = [[], []]
    var busy: [UInt64] = [0, 0]
    var roundMedians: [[Double]] = [[], []]
    for round in 0..<options.rounds {
        let n = options.count / options.rounds + (round < options.count % options.rounds ? 1 : 0)
        let order = round % 2 == 0 ? [0, 1] : [1, 0]
        for index in order {
            var roundSamples: [UInt64] = []
            roundSamples.reserveCapacity(n)
            let start = Clock.nanoseconds()
            for _ in 0..<n {
                sequence += 1
                roundSamples.append(try paths[index].exchange(sequence))
            }
            busy[index] += Clock.nanoseconds() - start
            samples[index] += roundSamples
            roundMedians[index].append(Summary(name: "", samples: roundSamples, busyNanoseconds: 1).percentile(0.5))
        }
    }
    direct.endpoint.close()
    viaDaemon.endpoint.close()
    let daemonEnded = daemon.stop()

    let summaries = paths.indices.map { Summary(name: paths[$0].name, samples: samples[$0], busyNanoseconds: busy[$0]) }
    let load = Files.read("/proc/loadavg").split(separator: " ").prefix(3).joined(separator: " ")
    print(
        "rtt-bench: 16-byte line echo (accessory-sim --personality echo), \(options.count) requests per path "
            + "in \(options.rounds) interleaved rounds, \(options.warmup) warm-up requests each"
    )
    print("products: \(products); \(sysconf(CInt(_SC_NPROCESSORS_ONLN))) CPUs; load average \(load)")
    print("")
    print("| path | requests | p50 µs | p90 µs | p99 µs | max µs | requests/s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for s in summaries {
        let cells = [
            s.name, String(s.samples.count), format(s.percentile(0.5)), format(s.percentile(0.9)),
            format(s.percentile(0.99)), format(s.percentile(1.0)), format(s.requestsPerSecond, 0),
        ]
        print("| " + cells.joined(separator: " | ") + " |")
    }
    print("")
    let overhead = summaries[1].percentile(0.5) - summaries[0].percentile(0.5)
    print("Overhead of accessoryd at p50: \(format(overhead)) µs (accessoryd p50 − direct p50).")
    for (index, s) in summaries.enumerated() {
        print("p50 per round, \(s.name): " + roundMedians[index].map { format($0) }.joined(separator: ", ") + " µs")
    }
    if daemonEnded != .exited(0) {
        throw BenchError(
            "accessoryd did not exit 0 after SIGTERM (\(daemonEnded.map { "\($0)" } ?? "?")): \(daemon.output)"
        )
    }
}

FileIO.ignoreSignal(SIGPIPE)
do {
    try measure(try Options.parse(Array(CommandLine.arguments.dropFirst())))
} catch {
    _ = try? FileIO.writeAll(2, Array("rtt-bench: \(error)\n".utf8))
    exit(1)
}
