import Glibc

/// Streaming throughput: lines sent back to back (no waiting for each echo) while the echoes are
/// read; one rate per round, the rounds interleaved with the other targets' (one target at a
/// time, in a rotating order), so that a busy moment of the shared machine falls on one round of
/// each, not on one target's only measurement.
///
/// Threading: main thread.
struct StreamingResult {
    let kind: TargetKind
    /// accessoryd's raw mode (`attach`), rather than `write` requests and `device.data`.
    let raw: Bool
    /// MB/s in each round, in round order.
    var rates: [Double]
    /// The relay's CPU time (every thread of it and of its children, ``ProcessStats``) and the
    /// bytes streamed, summed over the rounds; no CPU for `direct`, which has no relay.
    var relayCPUNanoseconds: UInt64 = 0
    var bytes = 0
    var label: String {
        guard kind.isAccessoryd else { return kind.rawValue }
        return kind.rawValue + (raw ? " (`attach`, raw)" : " (`write` + `device.data`)")
    }
    /// The median of the rounds.
    var megabytesPerSecond: Double { rates.sorted()[rates.count / 2] }
    var spread: String { "\(format(rates.min() ?? 0))–\(format(rates.max() ?? 0))" }
    /// The relay's milliseconds on a CPU per MiB streamed (each MiB goes through it both ways).
    var cpuMillisecondsPerMiB: Double { Double(relayCPUNanoseconds) / 1e6 / (Double(bytes) / Double(1 << 20)) }

    mutating func add(_ round: StreamingResult) {
        rates += round.rates
        relayCPUNanoseconds += round.relayCPUNanoseconds
        bytes += round.bytes
    }
}

/// Streams `total` payload bytes in `size`-byte lines through `target`, keeping at most `window`
/// bytes unechoed, and times until every byte has come back. Lines go out in batches of up to
/// `batch` bytes: a raw target gets them in one send, accessoryd in one pipelined `write`
/// request, on a connection subscribed to the accessory's `device.data` — or, with `raw`, as
/// raw bytes on a connection turned raw by `attach`. Every echoed line must be the next line sent,
/// byte for byte. The relay's CPU time is read when the connection is ready and again when the
/// last byte is back, before the connection closes (socat's child for it still alive).
func measureStreaming(
    _ target: Target,
    raw: Bool = false,
    total: Int,
    size: Int = 256,
    window: Int = 16_384,
    batch: Int = 4_096
) throws -> StreamingResult {
    let endpoint = try target.connect()
    defer { endpoint.close() }
    var wire = target.wire
    let device = (wire as? RPCWire)?.device ?? "echo"
    if target.kind.isAccessoryd && raw {
        let attached = try RPCWire.call(endpoint, id: 0, method: "attach", params: ["device": .string(device)])
        guard attached.result?["attached"] == true else { throw BenchError("attach answered \(attached)") }
        wire = RawWire()
    } else if target.kind.isAccessoryd {
        _ = try RPCWire.call(
            endpoint,
            id: 0,
            method: "subscribe",
            params: ["device": .string(device), "events": ["data"]]
        )
    }
    let relayCPU = { target.relay.map { ProcessStats($0.pid).cpuNanoseconds } ?? 0 }
    if let relay = target.relay, target.kind == .socat {
        // socat forks the child that relays this connection once it accepts it: count its CPU too.
        _ = try? waitFor("socat's child for the connection", seconds: 2) { ProcessStats.tree(relay.pid).count > 1 }
    }
    let cpuBefore = relayCPU()
    let lines = max(1, total / size)
    var sentLines = 0
    var echoedLines = 0
    // The lines sent and not yet echoed, oldest first from `unechoedHead`: each echo is checked
    // against the line it must be, without making the payload again.
    var unechoed: [[UInt8]] = []
    var unechoedHead = 0
    var received = 0
    var outbound: [UInt8] = []
    var offset = 0
    let start = Clock.nanoseconds()
    var lastProgress = start
    while received < lines * size {
        // Fill the window with whole lines, a batch a request, then write what the connection takes.
        while sentLines < lines && sentLines * size - received < window {
            var payloads: [[UInt8]] = []
            while sentLines < lines && sentLines * size - received < window
                && (payloads.isEmpty || (payloads.count + 1) * size <= batch)
            {
                sentLines += 1
                payloads.append(payload(size: size, client: 0, sequence: sentLines))
            }
            if payloads.isEmpty { break }
            unechoed += payloads
            outbound += wire.streamRequest(id: sentLines, payloads: payloads)
        }
        if offset < outbound.count {
            offset += try endpoint.sendSome(outbound[offset...])
            if offset == outbound.count {
                outbound.removeAll(keepingCapacity: true)
                offset = 0
            }
        }
        var descriptor = pollfd(
            fd: endpoint.fd,
            events: Int16(POLLIN) | (offset < outbound.count ? Int16(POLLOUT) : 0),
            revents: 0
        )
        if Glibc.poll(&descriptor, 1, 100) <= 0 || descriptor.revents & Int16(POLLIN) == 0 {
            if Clock.nanoseconds() - lastProgress > 5_000_000_000 {
                throw BenchError("\(target.kind): streaming stopped at \(received) of \(lines * size) bytes")
            }
            continue
        }
        if try !endpoint.readAvailable() { throw BenchError("\(target.kind) closed the streaming connection") }
        while let line = endpoint.bufferedLine() {
            guard let echoed = try wire.streamed(line) else { continue }
            echoedLines += 1
            guard unechoedHead < unechoed.count, echoed.elementsEqual(unechoed[unechoedHead]) else {
                throw BenchError(
                    "\(target.kind): echoed line \(echoedLines) is not the line sent: \(String(decoding: echoed.prefix(64), as: UTF8.self))"
                )
            }
            unechoedHead += 1
            if unechoedHead >= 256 && unechoedHead * 2 >= unechoed.count {
                unechoed.removeFirst(unechoedHead)
                unechoedHead = 0
            }
            received += echoed.count
            lastProgress = Clock.nanoseconds()
        }
    }
    let seconds = Double(Clock.nanoseconds() - start) / 1e9
    return StreamingResult(
        kind: target.kind,
        raw: raw,
        rates: [Double(received) / 1e6 / seconds],
        relayCPUNanoseconds: relayCPU() - cpuBefore,
        bytes: received
    )
}
