import Glibc

/// K clients on one accessory, each doing sequential requests, all driven from one thread by `poll`.
///
/// Threading: main thread.
struct ConcurrencyResult {
    let kind: TargetKind
    let clients: Int
    let samples: Samples
    let elapsedNanoseconds: UInt64
    /// Replies a client got that answered another client's request (or a request it did not make).
    let crossed: Int
    /// True when the run stopped early: no reply for a second (replies went elsewhere), or 15 s passed.
    let stalled: Bool
    var requestsPerSecond: Double { Double(samples.count) / (Double(elapsedNanoseconds) / 1e9) }
}

/// One client of a concurrent run: what it waits for and since when.
///
/// Threading: main thread.
private final class Client {
    let number: Int
    let endpoint: LineEndpoint
    var outstanding: (id: Int, payload: [UInt8], start: UInt64)?
    var sent = 0

    init(number: Int, endpoint: LineEndpoint) {
        self.number = number
        self.endpoint = endpoint
    }
}

/// `total` requests of `size` bytes spread over `clients` clients of `target`. A reply completes the
/// client's outstanding request whatever it carries (a raw relay cannot tell), and counts as
/// crossed when it is not that request's payload; a reply with nothing outstanding counts as crossed too.
func measureConcurrency(_ target: Target, clients count: Int, total: Int, size: Int) throws -> ConcurrencyResult {
    let perClient = max(1, total / count)
    let clients = try target.connect(count).enumerated().map { Client(number: $0, endpoint: $1) }
    defer { for client in clients { client.endpoint.close() } }
    var nextID = 0
    func sendNext(_ client: Client) throws {
        nextID += 1
        let bytes = payload(size: size, client: client.number, sequence: nextID)
        let request = target.wire.request(id: nextID, payload: bytes)
        client.outstanding = (nextID, bytes, Clock.nanoseconds())
        client.sent += 1
        try client.endpoint.send(request)
    }
    var samples: [UInt64] = []
    samples.reserveCapacity(perClient * count)
    var crossed = 0
    var stalled = false
    let start = Clock.nanoseconds()
    var lastProgress = start
    for client in clients { try sendNext(client) }
    var descriptors = clients.map { pollfd(fd: $0.endpoint.fd, events: Int16(POLLIN), revents: 0) }
    while clients.contains(where: { $0.outstanding != nil || $0.sent < perClient }) {
        let now = Clock.nanoseconds()
        if stalled || now - lastProgress > 1_000_000_000 || now - start > 15_000_000_000 {
            stalled = true
            break
        }
        if Glibc.poll(&descriptors, nfds_t(descriptors.count), 100) <= 0 { continue }
        for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
            let client = clients[index]
            if try !client.endpoint.readAvailable() {
                throw BenchError("\(target.kind.rawValue) closed client \(index)")
            }
            while let line = client.endpoint.bufferedLine() {
                guard let reply = try target.wire.reply(line) else { continue }
                let now = Clock.nanoseconds()
                lastProgress = now
                guard let outstanding = client.outstanding else {
                    crossed += 1
                    continue
                }
                // Only a client's own replies count as done requests (rate and latency).
                if reply.id.map({ $0 != outstanding.id }) ?? false || !reply.payload.elementsEqual(outstanding.payload)
                {
                    crossed += 1
                } else {
                    samples.append(now - outstanding.start)
                }
                client.outstanding = nil
                // A relay that stops reading (its device side is stuck) ends the run as stalled.
                if !stalled, client.sent < perClient, (try? sendNext(client)) == nil { stalled = true }
            }
        }
    }
    let elapsed = (stalled ? lastProgress : Clock.nanoseconds()) - start
    return ConcurrencyResult(
        kind: target.kind,
        clients: count,
        samples: Samples(samples),
        elapsedNanoseconds: elapsed,
        crossed: crossed,
        stalled: stalled
    )
}
