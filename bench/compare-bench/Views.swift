import ControlProtocol
import Glibc
import SystemCalls

/// The pty views beside what they replace: an `exclusive` view streaming through an echo
/// accessory against `attach` on the same daemon and against socat's pty relay
/// (`socat PTY,link=X,rawer FILE:<tty>,rawer`), a `shared` view's round trip against a socket
/// `transact` on the same daemon, and the cost of 16 monitor views nobody reads.
///
/// Threading: main thread.
struct ViewsResult {
    /// MB/s per path, the median of the rounds; the labels in the report's order.
    var streaming: [(label: String, megabytesPerSecond: Double)] = []
    var sharedView: Samples?
    var transact: Samples?
    var monitors: IdleResult?
    var streamedMiB = 0

    func rate(_ label: String) -> Double? { streaming.first { $0.label == label }?.megabytesPerSecond }

    static let direct = "direct (the echo accessory's own pty)"
    static let exclusive = "accessoryd `exclusive` view"
    static let attach = "accessoryd `attach` (raw, socket)"
    static let socatPTY = "socat `PTY,link=X,rawer FILE:tty,rawer`"
    /// The same two paths to an echo accessory paced like a UART (echo-accessory --baud).
    static let exclusiveUART = "accessoryd `exclusive` view, accessory at \(uartBaud / 1_000_000) Mbaud"
    static let attachUART = "accessoryd `attach`, accessory at \(uartBaud / 1_000_000) Mbaud"
    /// The top rate of the FT232R and CP2102N USB-serial bridges.
    static let uartBaud = 3_000_000
    /// At 300 KB/s a round of the default 8 MiB would take half a minute; 1 MiB tells as much.
    static let uartStreamBytes = 1 << 20
}

/// A pty slave opened by path, raw, as a program opens a serial port.
func openTerminal(_ path: String) throws -> LineEndpoint {
    let fd = try FileIO.open(path, flags: FileIO.OpenFlag.readWrite | FileIO.OpenFlag.noControllingTerminal)
    try PseudoTerminal.makeRaw(fd.rawValue)
    return try LineEndpoint(owning: fd)
}

/// Runs the views section: one daemon with three echo accessories (`echo`: an `exclusive` view;
/// `echo-s`: a `shared` one; `echo-u`, paced like a 3 Mbaud UART: an `exclusive` view), socat's
/// pty relay on a fourth echo accessory, a fifth reached directly; then 16 NMEA receivers with a
/// monitor view each and no reader.
///
/// Against a pty echo accessory, which answers at memory speed, the view's second pty is what
/// streaming measures; against one paced like a real serial line, the line sets the pace and
/// the view should match attach.
func measureViews(_ lab: Lab, options: Options) throws -> ViewsResult {
    var result = ViewsResult()
    result.streamedMiB = options.streamBytes >> 20
    let exclusiveEcho = try lab.echoAccessory("tty-view-x")
    let sharedEcho = try lab.echoAccessory("tty-view-s")
    let socatEcho = try lab.echoAccessory("tty-view-socat")
    let directEcho = try lab.echoAccessory("tty-view-direct")
    let uartEcho = try lab.echoAccessory("tty-view-uart", ["--baud", String(ViewsResult.uartBaud)])
    let socket = lab.file("views.sock")
    let daemon = try lab.startDaemon(
        accessories: [("echo", exclusiveEcho.link), ("echo-s", sharedEcho.link), ("echo-u", uartEcho.link)],
        socket: socket,
        maxClients: 4,
        log: "views-accessoryd",
        members: [
            "views: [{pty: bench-x, mode: exclusive}]", "views: [{pty: bench-s, mode: shared}]",
            "views: [{pty: bench-u, mode: exclusive}]",
        ]
    )
    defer { lab.stop(daemon) }
    let socatLink = lab.file("socat-pty")
    let socat = try lab.start(
        try Lab.tool("socat"),
        ["PTY,link=\(socatLink),rawer", "FILE:\(socatEcho.link),rawer"],
        log: "socat-pty.log"
    )
    defer { lab.stop(socat) }
    try waitFor("socat to make its pty", seconds: 15) {
        if let ended = socat.poll() { throw BenchError("socat ended (\(ended)): \(socat.output)") }
        return (try? FileIO.readLink(socatLink)) != nil
    }
    let connectSocket = { try LineEndpoint(owning: try Socket.connectedUnixStream(to: .path(socket))) }
    let control = try connectSocket()
    defer { control.close() }
    var controlID = 0
    // A raw session (the view's or attach's) ends with a resync: the next one waits for it.
    let settle = { (device: String) throws in
        try waitFor("the echo accessory \(device) to be free again", seconds: 15) {
            controlID += 1
            let status = try RPCWire.call(
                control,
                id: controlID,
                method: "device.status",
                params: ["device": .string(device)]
            )
            return status.result?["state"] == "ready" && status.result?["locked"] != true
        }
    }
    // A pty a program opens (the echo accessory's own, a view, socat's), or attach on a socket.
    func terminal(_ path: String, through relay: Child?, to echo: EchoAccessory) -> Target {
        Target(kind: .direct, wire: RawWire(), relay: relay, echo: echo) { try openTerminal(path) }
    }
    func attach(_ device: String, to echo: EchoAccessory) -> Target {
        Target(kind: .accessoryd, wire: RPCWire(device: device), relay: daemon, echo: echo, connector: connectSocket)
    }
    let paths: [(String, Target)] = [
        (ViewsResult.direct, terminal(directEcho.link, through: nil, to: directEcho)),
        (ViewsResult.exclusive, terminal(lab.folder + "/tty/bench-x", through: daemon, to: exclusiveEcho)),
        (ViewsResult.attach, attach("echo", to: exclusiveEcho)),
        (ViewsResult.socatPTY, terminal(socatLink, through: socat, to: socatEcho)),
        (ViewsResult.exclusiveUART, terminal(lab.folder + "/tty/bench-u", through: daemon, to: uartEcho)),
        (ViewsResult.attachUART, attach("echo-u", to: uartEcho)),
    ]
    progress("views: streaming")
    var rates = [[Double]](repeating: [], count: paths.count)
    for round in 0..<3 {
        for step in paths.indices {
            let index = (step + round) % paths.count
            let (label, target) = paths[index]
            let uart = target.echo.link == uartEcho.link
            if target.relay === daemon { try settle(uart ? "echo-u" : "echo") }
            let streamed = try measureStreaming(
                target,
                raw: label == ViewsResult.attach || label == ViewsResult.attachUART,
                total: uart ? min(options.streamBytes, ViewsResult.uartStreamBytes) : options.streamBytes
            )
            rates[index].append(streamed.megabytesPerSecond)
        }
    }
    result.streaming = paths.indices.map { (paths[$0].0, rates[$0].sorted()[rates[$0].count / 2]) }

    progress("views: shared view and transact round trips, 16 B")
    let view = try openTerminal(lab.folder + "/tty/bench-s")
    defer { view.close() }
    let client = try connectSocket()
    defer { client.close() }
    let sides: [(LineEndpoint, any Wire)] = [(view, RawWire()), (client, RPCWire(device: "echo-s"))]
    var samples: [[UInt64]] = [[], []]
    var id = 0
    for (endpoint, wire) in sides {
        for _ in 0..<options.warmup {
            id += 1
            _ = try exchange(endpoint, wire, id: id, payload: payload(size: 16, client: 0, sequence: id))
        }
    }
    let perSide = max(options.rounds, options.requests / 4)
    for round in 0..<options.rounds {
        for step in sides.indices {
            let index = (step + round) % sides.count
            let n = perSide / options.rounds + (round < perSide % options.rounds ? 1 : 0)
            for _ in 0..<n {
                id += 1
                let bytes = payload(size: 16, client: 0, sequence: id)
                samples[index].append(try exchange(sides[index].0, sides[index].1, id: id, payload: bytes))
            }
        }
    }
    result.sharedView = Samples(samples[0])
    result.transact = Samples(samples[1])

    progress("views: 16 monitor views with no reader, \(format(options.idleSeconds, 0)) s")
    result.monitors = try measureMonitorViews(lab, count: 16, seconds: options.idleSeconds)
    return result
}

/// `count` simulated NMEA receivers (a fix a second), each with a `monitor` view nobody opens:
/// the daemon's CPU over `seconds` and its memory at the end.
func measureMonitorViews(_ lab: Lab, count: Int, seconds: Double) throws -> IdleResult {
    try measureIdle(lab, count: count, seconds: seconds, personality: "nmea", name: "gps") {
        "views: [{pty: gps\($0), mode: monitor}]"
    }
}
