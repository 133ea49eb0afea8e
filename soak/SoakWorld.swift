import IOLoop

/// What the soak's parts share: the loop, the random source, the report, the accessories and the
/// `write` payloads sent to each (a subscriber's `W` frame must be one of them).
///
/// Threading: the soak's loop thread only.
final class SoakWorld {
    let loop: IOLoop
    let random: SoakRandom
    let report: Report
    let options: Options
    let socketPath: String
    var accessories: [EchoAccessory] = []
    /// Per accessory, every `write` payload sent to it (whether or not the write succeeded).
    var written: [Set<[UInt8]>] = []
    /// Every `transact` payload's life (see ``Trace``).
    var traces: [[UInt8]: Trace] = [:]
    let startedAt = Clock.seconds()
    /// Connections made so far; numbers each new one.
    var connectionsMade = 0

    init(loop: IOLoop, random: SoakRandom, report: Report, options: Options, socketPath: String) {
        self.loop = loop
        self.random = random
        self.report = report
        self.options = options
        self.socketPath = socketPath
    }

    /// Where the `transact` payload in `frame` came from, for a violation message.
    func history(of frame: [UInt8]) -> String {
        guard let trace = traces[frame] else { return "not a payload the soak sent" }
        return Payload.text(frame) + ": " + trace.describe(since: startedAt)
    }

    /// Notes how a `transact` ended (for ``history(of:)``); other calls are not traced.
    func noteOutcome(of call: Call, _ outcome: String) {
        guard case .transact(_, let payload, _) = call.kind else { return }
        traces[payload]?.outcome = outcome + " at \(Int(((Clock.seconds() - startedAt) * 1000).rounded())) ms"
    }

    func deviceName(_ number: Int) -> String { "echo\(number)" }

    /// The accessory number of a device name (`echo3` → 3), if it is one of ours.
    func deviceNumber(_ name: String) -> Int? {
        guard name.hasPrefix("echo"), let n = Int(name.dropFirst(4)), accessories.indices.contains(n) else {
            return nil
        }
        return n
    }
}
