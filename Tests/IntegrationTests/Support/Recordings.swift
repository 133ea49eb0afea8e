import ControlProtocol
import TrafficTrace

/// What the record/replay tests compare in recordings (docs/replay.md).
///
/// Threading: stateless. Any thread.
enum Recordings {
    /// A recording up to timestamps and read boundaries: each request with all the bytes that
    /// answered it, and all unsolicited bytes, in order. Two recordings of the same session are
    /// equal in this form (the kernel may cut the same bytes into reads differently).
    ///
    /// Threading: a value. Any thread.
    struct Session: Equatable, CustomStringConvertible {
        var exchanges: [(request: String, reply: String)]
        var unsolicited: String

        static func == (a: Session, b: Session) -> Bool {
            a.unsolicited == b.unsolicited && a.exchanges.count == b.exchanges.count
                && zip(a.exchanges, b.exchanges).allSatisfy { $0.request == $1.request && $0.reply == $1.reply }
        }

        var description: String {
            exchanges.map { "\($0.request.debugDescription) → \($0.reply.debugDescription)" }.joined(separator: "\n")
                + "\nunsolicited: \(unsolicited.debugDescription)"
        }
    }

    static func read(_ path: String) throws -> Recording { try RecordingFile.read(path: path) }

    static func session(_ recording: Recording) -> Session {
        var exchanges: [(request: String, reply: String)] = []
        var exchangeOfEntry: [Int: Int] = [:]
        var unsolicited: [UInt8] = []
        var replies: [[UInt8]] = []
        for (index, entry) in recording.entries.enumerated() {
            switch entry.kind {
            case .tx:
                exchangeOfEntry[index] = exchanges.count
                exchanges.append((TrafficText.escaped(entry.bytes), ""))
                replies.append([])
            case .rx(let replyTo):
                if let replyTo, let exchange = exchangeOfEntry[replyTo] {
                    replies[exchange] += entry.bytes
                } else {
                    unsolicited += entry.bytes
                }
            case .event, .dropped, .control:
                break
            }
        }
        for index in exchanges.indices { exchanges[index].reply = TrafficText.escaped(replies[index]) }
        return Session(exchanges: exchanges, unsolicited: TrafficText.escaped(unsolicited))
    }

    /// When each received line (up to and with its `\n`) was complete, in µs from the start:
    /// the time of the read that brought its last byte.
    static func lineTimes(_ recording: Recording) -> [(line: [UInt8], time: Int64)] {
        var out: [(line: [UInt8], time: Int64)] = []
        var pending: [UInt8] = []
        for entry in recording.entries {
            guard case .rx = entry.kind else { continue }
            for byte in entry.bytes {
                pending.append(byte)
                if byte == 0x0A {
                    out.append((pending, entry.timeMicroseconds))
                    pending.removeAll()
                }
            }
        }
        return out
    }

    /// How far each line of `replayed` arrived from where it did in `recorded`, in µs: each
    /// line's offset (its time in the replay minus its time in the recording) against the median
    /// offset (the two recordings started at different moments; the median, not the first line's
    /// offset, so that one line's noise does not shift them all). Lines only one has are left out.
    static func drift(recorded: Recording, replayed: Recording) -> [Int64] {
        var recordedTimes: [[UInt8]: Int64] = [:]
        for (line, time) in lineTimes(recorded) where recordedTimes[line] == nil { recordedTimes[line] = time }
        let offsets = lineTimes(replayed).compactMap { line, time in recordedTimes[line].map { time - $0 } }
        let median = quantile(offsets, 0.5)
        return offsets.map { abs($0 - median) }
    }

    /// The `q`-quantile (nearest rank) of `values`; 0 for none.
    static func quantile(_ values: [Int64], _ q: Double) -> Int64 {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(max(Int((q * Double(sorted.count)).rounded(.up)) - 1, 0), sorted.count - 1)]
    }
}
