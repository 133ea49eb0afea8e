/// Sequential round trips of one request size on every target, interleaved in rounds.
///
/// Threading: main thread.
struct LatencyResult {
    let kind: TargetKind
    let size: Int
    let samples: Samples
    /// The relay's CPU time over the measured requests (0 for `direct`), and their count.
    let relayCPUNanoseconds: UInt64
    var cpuMicrosecondsPerRequest: Double { Double(relayCPUNanoseconds) / 1_000 / Double(samples.count) }
}

/// Sends one request, waits for its reply and returns the round-trip time in nanoseconds;
/// throws if the reply is not this request's own. The clock covers the bytes on the wire only:
/// encoding is done before it starts and decoding after it stops. Main thread.
func exchange(_ endpoint: LineEndpoint, _ wire: any Wire, id: Int, payload: [UInt8]) throws -> UInt64 {
    let request = wire.request(id: id, payload: payload)
    let start = Clock.nanoseconds()
    try endpoint.send(request)
    var line = try endpoint.readLine()
    let elapsed = Clock.nanoseconds() - start
    while true {
        if let reply = try wire.reply(line) {
            guard reply.id == nil || reply.id == id, reply.payload.elementsEqual(payload) else {
                throw BenchError("request \(id) got \(String(decoding: line, as: UTF8.self))")
            }
            return elapsed
        }
        line = try endpoint.readLine()
    }
}

/// `requests` round trips per target in `rounds` rounds; each round rotates which target goes first.
func measureLatency(_ targets: [Target], size: Int, options: Options) throws -> [LatencyResult] {
    let endpoints = try targets.map { try $0.connect() }
    defer { for endpoint in endpoints { endpoint.close() } }
    var id = 0
    for (target, endpoint) in zip(targets, endpoints) {
        for _ in 0..<options.warmup {
            id += 1
            _ = try exchange(endpoint, target.wire, id: id, payload: payload(size: size, client: 0, sequence: id))
        }
    }
    var samples = [[UInt64]](repeating: [], count: targets.count)
    var cpu = [UInt64](repeating: 0, count: targets.count)
    for round in 0..<options.rounds {
        for step in targets.indices {
            let index = (step + round) % targets.count
            // ser2net's defaults wait at least 1 ms per reply (chardelay): fewer requests keep the run short.
            let total =
                targets[index].kind == .ser2netDefault ? min(options.requests, options.slowRequests) : options.requests
            let n = total / options.rounds + (round < total % options.rounds ? 1 : 0)
            let relay = targets[index].relay.map { ProcessStats($0.pid).cpuNanoseconds }
            samples[index].reserveCapacity(options.requests)
            for _ in 0..<n {
                id += 1
                let bytes = payload(size: size, client: 0, sequence: id)
                samples[index].append(try exchange(endpoints[index], targets[index].wire, id: id, payload: bytes))
            }
            if let relay, let pid = targets[index].relay?.pid { cpu[index] += ProcessStats(pid).cpuNanoseconds - relay }
        }
    }
    return targets.indices.map {
        LatencyResult(kind: targets[$0].kind, size: size, samples: Samples(samples[$0]), relayCPUNanoseconds: cpu[$0])
    }
}
