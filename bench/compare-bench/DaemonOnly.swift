import ControlProtocol
import Glibc
import SystemCalls

/// accessoryd alone: replug-to-ready time, and the cost of many idle accessories.
///
/// Threading: main thread.
struct ReplugResult {
    /// From the new link appearing (echo-accessory's READY time) to the `device.state ready` notification.
    let samples: Samples
}

/// Replugs the accessoryd target's echo accessory `count` times (SIGUSR1: old pty closed, new pty
/// and link) and times each from the link appearing to the `device.state` `ready` notification.
func measureReplug(_ target: Target, count: Int) throws -> ReplugResult {
    let endpoint = try target.connect()
    defer { endpoint.close() }
    _ = try RPCWire.call(endpoint, id: 0, method: "subscribe", params: ["device": "echo", "events": ["state"]])
    var samples: [UInt64] = []
    for _ in 0..<count {
        let before = target.echo.readyTimes.count
        try ChildProcess.signal(target.echo.child.pid, SIGUSR1)
        var left = false
        var readyAt: UInt64?
        let deadline = Clock.nanoseconds() + 10_000_000_000
        while readyAt == nil {
            if Clock.nanoseconds() > deadline { throw BenchError("no device.state ready within 10 s of a replug") }
            let line = try endpoint.readLine()
            let now = Clock.nanoseconds()
            guard case .notification(let notification) = try ServerMessage.decode(line),
                case .state(device: "echo", let state, _) = try notification.event()
            else { continue }
            if state != .ready { left = true } else if left { readyAt = now }
        }
        try waitFor("echo-accessory to announce its new pty", seconds: 5) {
            target.echo.readyTimes.count > before
        }
        guard let readyAt, let appeared = target.echo.readyTimes.last, readyAt >= appeared else {
            throw BenchError("accessoryd was ready before the new link appeared")
        }
        samples.append(readyAt - appeared)
        usleep(20_000)
    }
    return ReplugResult(samples: Samples(samples))
}

/// What `accessories` idle simulated accessories cost accessoryd.
///
/// Threading: a value. Main thread.
struct IdleResult {
    let accessories: Int
    let seconds: Double
    let cpuPercent: Double
    let stats: ProcessStats
}

/// Starts accessory-sim with `count` accessories of `personality` and a second accessoryd owning
/// them all (each with `member`'s extra configuration line, if any), lets it settle for a
/// second, then watches its CPU time for `seconds`.
func measureIdle(
    _ lab: Lab,
    count: Int,
    seconds: Double,
    personality: String = "echo",
    name: String = "idle",
    member: ((Int) -> String)? = nil
) throws -> IdleResult {
    let simulator = try lab.start(
        lab.products + "/accessory-sim",
        ["--personality", personality, "--name", name, "--link", lab.file(name), "--count", String(count)],
        log: "\(name)-sim.log"
    )
    defer { lab.stop(simulator) }
    try waitFor("accessory-sim to make \(count) accessories", seconds: 60) {
        if let ended = simulator.poll() { throw BenchError("accessory-sim ended (\(ended)): \(simulator.output)") }
        return simulator.output.split(separator: "\n").filter { $0.hasPrefix("READY ") }.count == count
    }
    let daemon = try lab.startDaemon(
        accessories: (0..<count).map { ("\(name)\($0)", lab.file("\(name)\($0)")) },
        socket: lab.file("\(name).sock"),
        maxClients: 1,
        log: "\(name)-accessoryd",
        members: member.map { (0..<count).map($0) } ?? []
    )
    defer { lab.stop(daemon) }
    usleep(1_000_000)
    let before = ProcessStats(daemon.pid).cpuNanoseconds
    let start = Clock.nanoseconds()
    usleep(useconds_t(seconds * 1e6))
    let stats = ProcessStats(daemon.pid)
    let wall = Double(Clock.nanoseconds() - start)
    return IdleResult(
        accessories: count,
        seconds: seconds,
        cpuPercent: Double(stats.cpuNanoseconds - before) / wall * 100,
        stats: stats
    )
}
