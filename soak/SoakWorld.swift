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
    /// Connections made so far; numbers each new one.
    var connectionsMade = 0

    init(loop: IOLoop, random: SoakRandom, report: Report, options: Options, socketPath: String) {
        self.loop = loop
        self.random = random
        self.report = report
        self.options = options
        self.socketPath = socketPath
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
