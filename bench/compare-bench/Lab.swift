import ControlProtocol
import Glibc
import SystemCalls

/// The targets, in the order of the report's rows.
///
/// Threading: a value. Any thread.
enum TargetKind: String, CaseIterable {
    /// The client opens the pty slave itself: the physical limit.
    case direct
    /// `socat UNIX-LISTEN:…,fork <tty>,raw,echo=0`.
    case socat
    /// ser2net 4.3, unix accepter, `chardelay: false`.
    case ser2net
    /// The same with ser2net's defaults (`chardelay` on: it waits up to 20 ms for more bytes).
    case ser2netDefault = "ser2net-default"
    /// `transact` over accessoryd's socket, line framing; the default thread layout (clients
    /// served on the device loop's thread).
    case accessoryd
    /// The same with `threads: {control: own}`: clients served on a loop thread of their own.
    case accessorydOwn = "accessoryd-own"
    /// `accessoryd` with a `text` trace file on the echo accessory: what tracing costs.
    case accessorydTraced = "accessoryd-traced"
    /// `accessoryd` as another build made it (`--baseline DIR`, e.g. an earlier commit), in the
    /// default layout: whether a change made the request path slower, measured in the same run.
    /// Only with `--baseline`.
    case accessorydBaseline = "accessoryd-baseline"
    /// ser2net 4.3's raw TCP accepter on 127.0.0.1 (`chardelay: false`).
    case ser2netTCP = "ser2net-tcp"
    /// ser2net 4.3's `telnet(rfc2217)` accepter on 127.0.0.1 (`chardelay: false`).
    case ser2netRFC2217 = "ser2net-rfc2217"
    /// accessoryd's own listener on the echo accessory, `protocol: raw` (a raw session).
    case accessorydTCP = "accessoryd-tcp"
    /// accessoryd's own listener on the echo accessory, `protocol: rfc2217`.
    case accessorydRFC2217 = "accessoryd-rfc2217"

    /// accessoryd in any of its configurations served over its socket (`transact`), this
    /// build's or the baseline's.
    var isAccessoryd: Bool {
        self == .accessoryd || self == .accessorydOwn || self == .accessorydTraced || self == .accessorydBaseline
    }

    /// A TCP listener: one raw session at a time, so no concurrent clients.
    var isNetwork: Bool {
        self == .ser2netTCP || self == .ser2netRFC2217 || self == .accessorydTCP || self == .accessorydRFC2217
    }

    /// Speaks telnet with RFC 2217's COM-PORT-OPTION.
    var isRFC2217: Bool { self == .ser2netRFC2217 || self == .accessorydRFC2217 }
}

/// A running target: its echo accessory, the relay in front of it, and how a client connects.
///
/// Threading: main thread.
final class Target {
    let kind: TargetKind
    let wire: any Wire
    /// The relay process (socat, ser2net, accessoryd); `nil` for `direct`.
    let relay: Child?
    let echo: EchoAccessory
    private let connector: () throws -> LineEndpoint

    init(
        kind: TargetKind,
        wire: any Wire,
        relay: Child?,
        echo: EchoAccessory,
        connector: @escaping () throws -> LineEndpoint
    ) {
        self.kind = kind
        self.wire = wire
        self.relay = relay
        self.echo = echo
        self.connector = connector
    }

    /// `count` fresh connections; first waits (up to 5 s) until the relay has no child process left from
    /// an earlier connection (socat forks one per connection, and a lingering one holding the tty
    /// would read replies meant for the new one).
    func connect() throws -> LineEndpoint { try connect(1)[0] }

    func connect(_ count: Int) throws -> [LineEndpoint] {
        if let relay, kind == .socat {
            let settled: Void? = try? waitFor("socat's earlier connections", seconds: 2) {
                ProcessStats.tree(relay.pid).count == 1
            }
            // A child whose client left while a reply was in flight can stay blocked; it is ours
            // (socat's, which we started): end it by pid.
            if settled == nil {
                for child in ProcessStats.tree(relay.pid).dropFirst() { try? ChildProcess.signal(child, SIGTERM) }
                try waitFor("socat's earlier connections to end", seconds: 5) {
                    ProcessStats.tree(relay.pid).count == 1
                }
            }
        }
        return try (0..<count).map { _ in try connector() }
    }
}

/// An `echo-accessory` child: its link, and the monotonic time its latest link appeared.
///
/// Threading: main thread.
struct EchoAccessory {
    let child: Child
    let link: String

    /// The `CLOCK_MONOTONIC` times in the READY lines printed so far (one per pty it made).
    var readyTimes: [UInt64] {
        child.output.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            return words.count == 3 && words[0] == "READY" ? UInt64(words[2]) : nil
        }
    }
}

/// The benchmark's world: a temporary folder and every child process it started, each stopped by
/// pid in ``finish()`` (also when a phase fails).
///
/// Threading: main thread.
final class Lab {
    let folder: String
    let products: String
    /// Where the `accessoryd-baseline` target's accessoryd is (`--baseline DIR`).
    let baselineProducts: String?
    private var children: [Child] = []

    init(products: String, baselineProducts: String? = nil) throws {
        self.products = products
        self.baselineProducts = baselineProducts
        folder = try FileIO.makeTemporaryDirectory(prefix: "/tmp/compare-bench-")
    }

    func file(_ name: String) -> String { folder + "/" + name }

    func start(_ executable: String, _ arguments: [String], log: String) throws -> Child {
        let child = try Child(executable, arguments, outputPath: file(log))
        children.append(child)
        return child
    }

    /// Stops `child` (SIGTERM, then SIGKILL) and forgets it.
    @discardableResult
    func stop(_ child: Child) -> ChildProcess.Termination? {
        children.removeAll { $0 === child }
        return child.stop()
    }

    /// Stops every child, newest first, and removes the folder.
    func finish() {
        for child in children.reversed() { child.stop() }
        children = []
        if let remover = try? ChildProcess.launch("/bin/rm", arguments: ["-rf", folder]) {
            _ = try? ChildProcess.wait(remover, block: true)
        }
    }

    /// An echo-accessory published at `name` in the lab's folder; `arguments` are more of its
    /// options (e.g. `--baud N`).
    func echoAccessory(_ name: String, _ arguments: [String] = []) throws -> EchoAccessory {
        let link = file(name)
        let child = try start(products + "/echo-accessory", ["--link", link] + arguments, log: name + ".log")
        let echo = EchoAccessory(child: child, link: link)
        try waitFor("echo-accessory \(name) to print READY", seconds: 10) {
            if let ended = child.poll() { throw BenchError("echo-accessory ended (\(ended)): \(child.output)") }
            return !echo.readyTimes.isEmpty
        }
        return echo
    }

    /// Waits until a Unix socket at `path` accepts a connection from us.
    func waitForSocket(_ path: String, of child: Child, _ name: String) throws {
        try waitFor("\(name) to listen on \(path)", seconds: 15) {
            if let ended = child.poll() { throw BenchError("\(name) ended (\(ended)): \(child.output)") }
            guard let fd = try? Socket.connectedUnixStream(to: .path(path)) else { return false }
            fd.close()
            return true
        }
    }

    func target(_ kind: TargetKind, maxClients: Int) throws -> Target {
        let echo = try echoAccessory("tty-" + kind.rawValue)
        let socketPath = file(kind.rawValue + ".sock")
        // A relay with a short listen backlog (socat: 5) refuses with EAGAIN until it has accepted.
        let connectSocket = {
            var attempts = 0
            while true {
                do {
                    return try LineEndpoint(owning: try Socket.connectedUnixStream(to: .path(socketPath)))
                } catch let error as SyscallError
                    where error.errno == .resourceTemporarilyUnavailable && attempts < 2_000
                {
                    attempts += 1
                    usleep(1_000)
                }
            }
        }
        switch kind {
        case .direct:
            return Target(kind: kind, wire: RawWire(), relay: nil, echo: echo) {
                let fd = try FileIO.open(
                    echo.link,
                    flags: FileIO.OpenFlag.readWrite | FileIO.OpenFlag.noControllingTerminal
                )
                try PseudoTerminal.makeRaw(fd.rawValue)
                return try LineEndpoint(owning: fd)
            }
        case .socat:
            let relay = try start(
                try Lab.tool("socat"),
                ["-t", "0", "UNIX-LISTEN:\(socketPath),fork", "\(echo.link),raw,echo=0"],
                log: "socat.log"
            )
            // Not by connecting: the child socat forks for a test connection opens the tty and
            // would read (steal) the next client's reply while it lingers.
            try waitFor("socat to listen on \(socketPath)", seconds: 15) {
                if let ended = relay.poll() { throw BenchError("socat ended (\(ended)): \(relay.output)") }
                return (try? FileIO.status(ofPath: socketPath)) ?? nil != nil
            }
            return Target(kind: kind, wire: RawWire(), relay: relay, echo: echo, connector: connectSocket)
        case .ser2net, .ser2netDefault:
            let config = file(kind.rawValue + ".yaml")
            try FileIO.writeFile(
                config,
                """
                connection: &bench
                  accepter: unix,\(socketPath)
                  connector: serialdev,\(echo.link),local
                  options:
                    max-connections: \(maxClients)
                \(kind == .ser2net ? "    chardelay: false\n" : "")
                """
            )
            let relay = try start(
                try Lab.tool("ser2net"),
                ["-n", "-d", "-c", config, "-P", file(kind.rawValue + ".pid")],
                log: kind.rawValue + ".log"
            )
            try waitForSocket(socketPath, of: relay, "ser2net")
            return Target(kind: kind, wire: RawWire(), relay: relay, echo: echo, connector: connectSocket)
        case .ser2netTCP, .ser2netRFC2217, .accessorydTCP, .accessorydRFC2217:
            return try networkTarget(kind, echo: echo, maxClients: maxClients)
        case .accessoryd, .accessorydOwn, .accessorydTraced, .accessorydBaseline:
            let relay = try startDaemon(
                echo: echo,
                socket: socketPath,
                maxClients: maxClients,
                ownThread: kind == .accessorydOwn,
                trace: kind == .accessorydTraced ? file("echo.trace") : nil,
                baseline: kind == .accessorydBaseline
            )
            return Target(kind: kind, wire: RPCWire(device: "echo"), relay: relay, echo: echo, connector: connectSocket)
        }
    }

    /// A TCP relay in front of `echo`: ser2net's raw or `telnet(rfc2217)` accepter, or
    /// accessoryd's listener (its echo accessory's `network:`), on a free loopback port, which
    /// answers before this returns. An RFC 2217 connection starts with ``TelnetWire/greeting``.
    private func networkTarget(_ kind: TargetKind, echo: EchoAccessory, maxClients: Int) throws -> Target {
        let port = try Loopback.freePort()
        let relay: Child
        switch kind {
        case .ser2netTCP, .ser2netRFC2217:
            let config = file(kind.rawValue + ".yaml")
            try FileIO.writeFile(
                config,
                """
                connection: &bench
                  accepter: \(kind.isRFC2217 ? "telnet(rfc2217)," : "")tcp(nodelay),127.0.0.1,\(port)
                  connector: serialdev,\(echo.link),local
                  options:
                    chardelay: false

                """
            )
            relay = try start(
                try Lab.tool("ser2net"),
                ["-n", "-d", "-c", config, "-P", file(kind.rawValue + ".pid")],
                log: kind.rawValue + ".log"
            )
        default:
            let network = "network: [{listen: \"127.0.0.1:\(port)\", protocol: \(kind.isRFC2217 ? "rfc2217" : "raw")}]"
            relay = try startDaemon(
                echo: echo,
                socket: file(kind.rawValue + ".sock"),
                maxClients: maxClients,
                ownThread: false,
                trace: nil,
                baseline: false,
                log: kind.rawValue,
                echoMembers: network
            )
        }
        // accessoryd listens once its accessories are ready (startDaemon waited for that); a
        // probe connection would be a session, refusing the next until its resync is over.
        let daemonSocket = file(kind.rawValue + ".sock")
        if kind == .ser2netTCP || kind == .ser2netRFC2217 {
            try waitFor("\(kind.rawValue) to listen on 127.0.0.1:\(port)", seconds: 15) {
                if let ended = relay.poll() { throw BenchError("\(kind.rawValue) ended (\(ended)): \(relay.output)") }
                guard let probe = try Loopback.connect(port: port) else { return false }
                probe.close()
                return true
            }
        }
        let rfc2217 = kind.isRFC2217
        let wire: any Wire = rfc2217 ? TelnetWire() : RawWire()
        let isDaemon = kind == .accessorydTCP || kind == .accessorydRFC2217
        return Target(kind: kind, wire: wire, relay: relay, echo: echo) {
            // accessoryd refuses a session while the last one's resync runs: wait until the
            // accessory is ready and unlocked again.
            if isDaemon { try Lab.waitUntilFree(socket: daemonSocket, device: "echo") }
            // ser2net lets the last session go asynchronously: retry (bounded) while it refuses.
            var attempts = 0
            while true {
                if let fd = try Loopback.connect(port: port) {
                    let endpoint = try LineEndpoint(owning: fd)
                    if rfc2217 {
                        endpoint.telnet = TelnetDecoder()
                        try endpoint.send(TelnetWire.greeting)
                    }
                    return endpoint
                }
                attempts += 1
                guard attempts < 2_000 else { throw BenchError("\(kind.rawValue) refuses connections") }
                usleep(1_000)
            }
        }
    }

    /// accessoryd with the echo accessory and 15 simulated ones beside it (16 in all), all ready.
    /// With `trace`, the echo accessory writes a `text` trace file there (rotated at 64 MiB);
    /// `echoMembers` is more of the echo accessory's flow mapping (its `network:`).
    private func startDaemon(
        echo: EchoAccessory,
        socket: String,
        maxClients: Int,
        ownThread: Bool,
        trace: String?,
        baseline: Bool,
        log: String? = nil,
        echoMembers: String? = nil
    ) throws -> Child {
        let others = 15
        let simulator = try start(
            products + "/accessory-sim",
            ["--personality", "echo", "--name", "sim", "--link", file("sim"), "--count", String(others)],
            log: "sim.log"
        )
        try waitFor("accessory-sim to print READY", seconds: 15) {
            if let ended = simulator.poll() { throw BenchError("accessory-sim ended (\(ended)): \(simulator.output)") }
            return simulator.output.split(separator: "\n").filter { $0.hasPrefix("READY ") }.count == others
        }
        let accessories = [(name: "echo", path: echo.link)] + (0..<others).map { ("sim\($0)", file("sim\($0)")) }
        return try startDaemon(
            accessories: accessories,
            socket: socket,
            maxClients: maxClients,
            log: log
                ?? (ownThread
                    ? "accessoryd-own"
                    : trace != nil ? "accessoryd-traced" : baseline ? "accessoryd-baseline" : "accessoryd"),
            extra: ownThread ? "threads: {control: own}\n" : "",
            trace: trace,
            members: echoMembers.map { [$0] } ?? [],
            baseline: baseline
        )
    }

    /// Starts accessoryd on `accessories` (line framing) and waits until every one is ready;
    /// with `trace`, the first accessory has a `text` trace file there. `members[i]`, when given,
    /// is more of accessory i's flow mapping (e.g. its `views:`). With `baseline`, the daemon is
    /// the `--baseline` build's.
    func startDaemon(
        accessories: [(name: String, path: String)],
        socket: String,
        maxClients: Int,
        log: String,
        extra: String = "",
        trace: String? = nil,
        members: [String] = [],
        baseline: Bool = false
    ) throws -> Child {
        guard !baseline || baselineProducts != nil else { throw BenchError("the baseline target needs --baseline DIR") }
        let config = file(log + ".yaml")
        try FileIO.writeFile(
            config,
            "socket: {path: \(socket)}\nlog: {level: warning}\n" + extra
                + "limits: {max_clients: \(max(256, maxClients + 8)), queue_depth: \(max(64, 2 * maxClients))}\n"
                + "accessories:\n"
                + accessories.enumerated().map { index, accessory in
                    let traced =
                        index == 0
                        ? trace.map { ", trace: {file: \($0), format: text, max_bytes: 67108864, keep: 1}" } ?? "" : ""
                    let more = index < members.count ? ", " + members[index] : ""
                    return
                        "  - {name: \(accessory.name), path: \(accessory.path), framing: {type: line, delimiter: \"\\n\"}"
                        + traced + more + "}\n"
                }
                .joined()
        )
        // A baseline build may predate `--runtime-dir`; the configuration names the socket and no
        // simulated accessory, so nothing it runs needs the runtime folder.
        let daemon = try start(
            ((baseline ? baselineProducts : nil) ?? products) + "/accessoryd",
            ["--config", config] + (baseline ? [] : ["--runtime-dir", folder]),
            log: log + ".log"
        )
        try waitForSocket(socket, of: daemon, "accessoryd")
        let endpoint = try LineEndpoint(owning: try Socket.connectedUnixStream(to: .path(socket)))
        defer { endpoint.close() }
        var id = 0
        try waitFor("\(accessories.count) accessories to be ready", seconds: 30) {
            id += 1
            let list = try RPCWire.call(endpoint, id: id, method: "devices.list")
            let devices = list.result?["devices"]?.arrayValue ?? []
            return devices.filter { $0["state"] == "ready" }.count == accessories.count
        }
        return daemon
    }

    /// Waits (up to 10 s) until accessoryd's `device` is `ready` (not resyncing) and unlocked.
    static func waitUntilFree(socket: String, device: String) throws {
        let endpoint = try LineEndpoint(owning: try Socket.connectedUnixStream(to: .path(socket)))
        defer { endpoint.close() }
        var id = 0
        try waitFor("\(device) to be free for a session", seconds: 10) {
            id += 1
            let status = try RPCWire.call(
                endpoint,
                id: id,
                method: "device.status",
                params: ["device": .string(device)]
            )
            return status.result?["state"] == "ready" && status.result?["locked"] == false
        }
    }

    /// The full path of a program on `PATH` (or in /usr/sbin, where Debian puts ser2net).
    static func tool(_ name: String) throws -> String {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") + ["/usr/sbin", "/usr/bin"]
        where access("\(folder)/\(name)", X_OK) == 0 {
            return "\(folder)/\(name)"
        }
        throw BenchError("\(name) is not installed (make bench-deps installs it)")
    }
}
