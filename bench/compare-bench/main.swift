// compare-bench: accessoryd beside the alternatives, in one run. The same echo accessory
// (echo-accessory, a pty echoing every byte) is reached directly, through socat, through ser2net
// (with and without chardelay) and through accessoryd (`transact`), interleaved; the Markdown
// table is printed and written to --output.
//
//   scripts/compare-bench.sh          (or: make bench)
//
// Threading: everything runs on the main thread; the accessories and relays are child
// processes, started and stopped by pid (also when a phase fails).
import Glibc
import SystemCalls

func run(_ options: Options) throws {
    let me = (try? FileIO.readLink("/proc/self/exe")) ?? CommandLine.arguments[0]
    let products = options.products ?? Files.folder(of: me)
    for name in ["accessoryd", "accessory-sim", "echo-accessory"] where access(products + "/" + name, X_OK) != 0 {
        throw BenchError("\(products)/\(name) is not built: run scripts/compare-bench.sh, or pass --products DIR")
    }
    if let baseline = options.baseline, access(baseline + "/accessoryd", X_OK) != 0 {
        throw BenchError("\(baseline)/accessoryd is not built (--baseline DIR names the folder with it)")
    }
    let lab = try Lab(products: products, baselineProducts: options.baseline)
    defer { lab.finish() }
    if options.viewsOnly {
        var report = Report()
        report.header = header(options)
        report.views = try measureViews(lab, options: options)
        try write(report, options)
        return
    }
    let maxClients = options.clients.max() ?? 1
    let targets = try options.targets.map { try lab.target($0, maxClients: maxClients) }
    progress("targets started")
    var report = Report()
    report.header = header(options)
    progress("round trips, 16 B and 256 B")
    report.latency = try measureLatency(targets, size: 16, options: options)
    report.latency += try measureLatency(targets, size: 256, options: options)
    // Streaming before the K-client runs: those leave ser2net's connection to its device stuck.
    progress("streaming, \(options.rounds) interleaved rounds")
    let paths = targets.flatMap { target in (target.kind.isAccessoryd ? [false, true] : [false]).map { (target, $0) } }
    var failed = Set<Int>()
    for round in 0..<options.rounds {
        // A rotating order, so that no path always runs first (or right after the same one).
        for step in paths.indices {
            let index = (step + round) % paths.count
            guard !failed.contains(index) else { continue }
            let (target, raw) = paths[index]
            do {
                let result = try measureStreaming(target, raw: raw, total: options.streamBytes)
                if let known = report.streaming.firstIndex(where: { $0.kind == target.kind && $0.raw == raw }) {
                    report.streaming[known].add(result)
                } else {
                    report.streaming.append(result)
                }
            } catch {
                failed.insert(index)
                report.notes.append("Streaming through \(target.kind.rawValue) failed: \(error).")
            }
        }
    }
    func position(_ result: StreamingResult) -> Int {
        paths.firstIndex { $0.0.kind == result.kind && $0.1 == result.raw } ?? paths.count
    }
    report.streaming.sort { position($0) < position($1) }
    for k in options.clients {
        progress("\(k) concurrent clients")
        // A TCP listener serves one raw session at a time: no concurrent clients.
        for target in targets where !target.kind.isNetwork {
            report.concurrency.append(
                try measureConcurrency(target, clients: k, total: max(k, options.concurrentRequests), size: 16)
            )
        }
    }
    for target in targets {
        guard let relay = target.relay else { continue }
        report.memory.append((target.kind, ProcessStats(relay.pid)))
        if target.kind == .accessoryd { report.daemonLibraries = libraries(of: relay.pid) }
    }
    if options.interferenceSeconds > 0 {
        for kind in options.targets where kind.isAccessoryd {
            progress("interference: \(kind.rawValue)")
            report.interference.append(try measureInterference(lab, kind, seconds: options.interferenceSeconds))
        }
    }
    if let daemon = targets.first(where: { $0.kind == .accessoryd }) {
        if options.replugs > 0 {
            progress("replug")
            report.replug = try measureReplug(daemon, count: options.replugs)
        }
        if options.idleAccessories > 0 {
            for relay in targets.compactMap(\.relay) { lab.stop(relay) }
            progress("\(options.idleAccessories) idle accessories, \(format(options.idleSeconds, 0)) s")
            report.idle = try measureIdle(lab, count: options.idleAccessories, seconds: options.idleSeconds)
        }
    }
    if options.views {
        for relay in targets.compactMap(\.relay) { lab.stop(relay) }
        do {
            report.views = try measureViews(lab, options: options)
        } catch {
            report.notes.append("The pty views section failed: \(error).")
        }
    }
    try write(report, options)
}

func write(_ report: Report, _ options: Options) throws {
    let text = report.markdown()
    print(text, terminator: "")
    try FileIO.writeFile(options.output, text)
    progress("written to \(options.output)")
}

func header(_ options: Options) -> [String] {
    let load = FileIO.readText("/proc/loadavg").split(separator: " ").prefix(3).joined(separator: " ")
    var date = time(nil)
    var parts = tm()
    gmtime_r(&date, &parts)
    func two(_ value: CInt) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let day =
        "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)) UTC"
    return [
        "## compare-bench, \(day)", "",
        "`" + (["compare-bench"] + CommandLine.arguments.dropFirst()).joined(separator: " ") + "` — "
            + "\(sysconf(CInt(_SC_NPROCESSORS_ONLN))) CPUs, load average \(load) at the start. "
            + "\(options.requests) sequential requests per target and size in \(options.rounds) interleaved rounds "
            + "(\(options.warmup) warm-up); \(options.concurrentRequests) requests per target at each client count; "
            + "\(options.streamBytes >> 20) MiB streamed per target. Every target talks to its own echo-accessory. "
            + idleDescription(),
    ]
}

/// How an idle CPU waits, which decides what a wake-up costs (and so most of a round trip on a
/// virtual machine): with the `haltpoll` driver and `guest_halt_poll_ns` 0, every idle halts the
/// virtual CPU and every wake-up goes through the hypervisor.
func idleDescription() -> String {
    func firstWord(_ path: String) -> String {
        FileIO.readText(path).split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
    }
    let driver = firstWord("/sys/devices/system/cpu/cpuidle/current_driver")
    guard !driver.isEmpty else { return "CPU idle driver: unknown." }
    let poll = firstWord("/sys/module/haltpoll/parameters/guest_halt_poll_ns")
    guard driver == "haltpoll", !poll.isEmpty else { return "CPU idle driver: \(driver)." }
    return "CPU idle driver: haltpoll, guest_halt_poll_ns \(poll)"
        + (poll == "0" ? " (every idle halts the virtual CPU: wake-ups go through the hypervisor)." : ".")
}

/// The shared libraries mapped into `pid`, by file name.
func libraries(of pid: pid_t) -> [String] {
    var names: [String] = []
    for line in FileIO.readText("/proc/\(pid)/maps").split(separator: "\n") {
        guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last, path.contains(".so") else {
            continue
        }
        let name = String(path.split(separator: "/").last ?? path)
        if !names.contains(name) { names.append(name) }
    }
    return names
}

let startedAt = Clock.nanoseconds()

/// A line on stderr with the seconds since the start. Main thread.
func progress(_ text: String) {
    let seconds = format(Double(Clock.nanoseconds() - startedAt) / 1e9, 0)
    _ = try? FileIO.writeAll(2, Array("compare-bench: [\(seconds) s] \(text)\n".utf8))
}

FileIO.ignoreSignal(SIGPIPE)
do {
    try run(try Options.parse(Array(CommandLine.arguments.dropFirst())))
} catch {
    progress("\(error)")
    exit(1)
}
