import ControlProtocol
import Glibc
import SystemCalls

/// accessoryd alone: what a flood of long request lines from other clients costs, in each thread
/// layout. The `own` layout keeps the clients off the device loop so that "a huge JSON line must never
/// delay a byte on a serial line"; with `threads: {control: shared}` (the default) they share it,
/// bounded by the control server's input budget per turn of the loop. Two things are timed, quiet
/// and then flooded: how late an accessory's unprompted lines reach a subscriber (echo-accessory
/// `--tick-us`: each line carries the time it was written; this path never passes through the
/// control server's reading), and a client's 16 B transacts on another accessory.
///
/// Threading: a value. Main thread.
struct InterferenceResult {
    let kind: TargetKind
    let flooders: Int
    let lineBytes: Int
    let quietTicks: Samples
    let floodedTicks: Samples
    let quietTransacts: Samples
    let floodedTransacts: Samples
    /// Long lines parsed and refused per second during the flooded part (the daemon's count).
    let floodLinesPerSecond: Double
}

/// A daemon of the layout `kind` with an echo accessory and a ticking one (a line every
/// millisecond), timed for `seconds` of back-to-back transacts quiet, then again while a child process keeps
/// `flooders` connections each sending `lineBytes` lines, two in flight. A flood line is a
/// `devices.list` with a long unknown member: parsed whole, then refused (invalid params), so it
/// costs parsing and nothing on any accessory.
func measureInterference(
    _ lab: Lab,
    _ kind: TargetKind,
    seconds: Double,
    flooders: Int = 8,
    lineBytes: Int = 60_000
) throws -> InterferenceResult {
    let tag = kind.rawValue + "-interference"
    let echo = try lab.echoAccessory(tag + "-echo")
    defer { lab.stop(echo.child) }
    let tickLink = lab.file(tag + "-tick")
    let ticker = try lab.start(
        lab.products + "/echo-accessory",
        ["--link", tickLink, "--tick-us", "1000"],
        log: tag + "-tick.log"
    )
    defer { lab.stop(ticker) }
    try waitFor("the ticking echo-accessory to print READY", seconds: 10) { ticker.output.contains("READY") }
    let socket = lab.file(tag + ".sock")
    let daemon = try lab.startDaemon(
        accessories: [("echo", echo.link), ("tick", tickLink)],
        socket: socket,
        maxClients: flooders + 2,
        log: tag,
        extra: kind == .accessorydOwn ? "threads: {control: own}\n" : "",
        baseline: kind == .accessorydBaseline
    )
    defer { lab.stop(daemon) }
    let connect = { try LineEndpoint(owning: try Socket.connectedUnixStream(to: .path(socket))) }
    let client = try connect()
    defer { client.close() }
    let listener = try connect()
    defer { listener.close() }
    _ = try RPCWire.call(listener, id: 0, method: "subscribe", params: ["device": "tick", "events": ["data"]])
    let wire = RPCWire(device: "echo")

    var id = 0
    /// Sequential transacts for `seconds`, with every tick that arrives meanwhile.
    func phase() throws -> (transacts: Samples, ticks: Samples) {
        var transacts: [UInt64] = []
        var ticks: [UInt64] = []
        let start = Clock.nanoseconds()
        var outstanding: (id: Int, payload: [UInt8], sent: UInt64)?
        let duration = UInt64(seconds * 1e9)
        while Clock.nanoseconds() - start < duration || outstanding != nil {
            if Clock.nanoseconds() - start > duration + 5_000_000_000 { throw BenchError("no transact reply in 5 s") }
            if outstanding == nil && Clock.nanoseconds() - start < duration {
                id += 1
                let bytes = payload(size: 16, client: 0, sequence: id)
                try client.send(wire.request(id: id, payload: bytes))
                outstanding = (id, bytes, Clock.nanoseconds())
            }
            var descriptors = [client.fd, listener.fd].map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard Glibc.poll(&descriptors, 2, 1_000) > 0 else { continue }
            if descriptors[1].revents != 0 {
                guard try listener.readAvailable() else { throw BenchError("accessoryd closed the tick subscriber") }
                let arrived = Clock.nanoseconds()
                while let line = listener.bufferedLine() {
                    guard case .notification(let n) = try ServerMessage.decode(line),
                        let text = n.params["data"]?.stringValue, text.first == "T",
                        let stamp = UInt64(text.dropFirst())
                    else { continue }
                    // The first 100 ms may hold ticks written before anyone read the pty.
                    if arrived - start > 100_000_000, arrived >= stamp { ticks.append(arrived - stamp) }
                }
            }
            if descriptors[0].revents != 0 {
                guard try client.readAvailable() else { throw BenchError("accessoryd closed the measuring client") }
                while let line = client.bufferedLine() {
                    guard let reply = try wire.reply(line), let o = outstanding else { continue }
                    guard reply.id == o.id, reply.payload.elementsEqual(o.payload) else {
                        throw BenchError("the measuring client got a reply to another request")
                    }
                    transacts.append(Clock.nanoseconds() - o.sent)
                    outstanding = nil
                }
            }
        }
        return (Samples(transacts), Samples(ticks))
    }
    func decodeErrors() throws -> Int {
        id += 1
        let status = try RPCWire.call(client, id: id, method: "daemon.status")
        guard let count = status.result?["decode_errors"]?.int64Value else { throw BenchError("no decode_errors") }
        return Int(count)
    }

    let quiet = try phase()
    let padding = String(repeating: "p", count: max(0, lineBytes - 80))
    let line = RPCWire.line(id: 1, method: "devices.list", params: ["padding": .string(padding)])
    let flooder = try startFlood(socket: socket, connections: flooders, line: line)
    defer { stopFlood(flooder) }
    usleep(300_000)  // let the flood build up
    let before = try decodeErrors()
    let floodStart = Clock.nanoseconds()
    let flooded = try phase()
    let answered = try decodeErrors() - before
    let seconds = Double(Clock.nanoseconds() - floodStart) / 1e9
    return InterferenceResult(
        kind: kind,
        flooders: flooders,
        lineBytes: line.count,
        quietTicks: quiet.ticks,
        floodedTicks: flooded.ticks,
        quietTransacts: quiet.transacts,
        floodedTransacts: flooded.transacts,
        floodLinesPerSecond: Double(answered) / seconds
    )
}

/// Forks a child that keeps `connections` clients each sending `line` with two in flight, until
/// it is sent SIGTERM (or 60 s pass). The child does nothing else; its own errors end it quietly.
/// Main thread (the benchmark has no other threads, so the child may allocate after fork).
private func startFlood(socket: String, connections: Int, line: [UInt8]) throws -> pid_t {
    let pid = fork()
    guard pid >= 0 else { throw BenchError("fork failed") }
    if pid > 0 { return pid }
    signal(SIGTERM, SIG_DFL)
    let deadline = Clock.nanoseconds() + 60_000_000_000
    guard
        let endpoints = try? (0..<connections).map({ _ in
            try LineEndpoint(owning: try Socket.connectedUnixStream(to: .path(socket)))
        })
    else { _exit(1) }
    var offsets = [Int](repeating: 0, count: connections)
    var outbound = [[UInt8]](repeating: [], count: connections)
    var inFlight = [Int](repeating: 0, count: connections)
    while Clock.nanoseconds() < deadline {
        var descriptors = endpoints.indices.map { index in
            while inFlight[index] < 2 {
                outbound[index] += line
                inFlight[index] += 1
            }
            return pollfd(fd: endpoints[index].fd, events: Int16(POLLIN | POLLOUT), revents: 0)
        }
        guard Glibc.poll(&descriptors, nfds_t(connections), 1_000) > 0 else { continue }
        for index in endpoints.indices where descriptors[index].revents != 0 {
            let e = endpoints[index]
            if descriptors[index].revents & Int16(POLLOUT) != 0, offsets[index] < outbound[index].count {
                offsets[index] += (try? e.sendSome(outbound[index][offsets[index]...])) ?? 0
                if offsets[index] == outbound[index].count {
                    outbound[index].removeAll(keepingCapacity: true)
                    offsets[index] = 0
                }
            }
            if descriptors[index].revents & Int16(POLLIN) != 0 {
                guard (try? e.readAvailable()) == true else { _exit(1) }
                while e.bufferedLine() != nil { inFlight[index] -= 1 }
            }
        }
    }
    _exit(0)
}

private func stopFlood(_ pid: pid_t) {
    kill(pid, SIGTERM)
    var status: CInt = 0
    waitpid(pid, &status, 0)
}
