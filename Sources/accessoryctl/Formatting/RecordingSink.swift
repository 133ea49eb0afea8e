import ControlProtocol
import SystemCalls
import TrafficTrace

/// Writes `record`'s file as the records arrive, a line at a time (a recorder that is killed
/// leaves every line before it whole): the header, then each traffic record with its time from
/// the first one, redacted, `rx` records naming the request they answer (the one the daemon
/// says was waiting for its answer when it read them; docs/replay.md), and state changes as
/// `open`/`close`/`unplug` events.
///
/// Threading: any thread; `@unchecked Sendable` because all state is in a `Locked` (records come
/// from one task, the summary is read by another after it ended).
final class RecordingSink: @unchecked Sendable {
    /// Threading: a value, inside the lock.
    private struct State {
        var fd: CInt
        var redactor: ByteRedactor
        var startMicroseconds: Int64?
        var lastTime: Int64 = 0
        var nextLine = 1
        /// The line of the latest `tx` of each request (client and request id).
        var requestLines: [String: Int] = [:]
        var failure: String?
    }

    private let state: Locked<State>
    /// The file; closed when the sink goes.
    private let file: OwnedFD

    init(fd: consuming OwnedFD, redactor: ByteRedactor) {
        state = Locked(State(fd: fd.rawValue, redactor: redactor))
        file = fd
    }

    /// Why writing stopped, if it did.
    var failure: String? { state.withLock { $0.failure } }

    func start(device: String, settings: [String: String]) {
        let header = Recording(device: device, startedMicroseconds: nil, settings: settings).headerLine()
        state.withLock { Self.write(header, in: &$0) }
    }

    func add(_ record: TrafficRecord) {
        state.withLock { state in
            let start = state.startMicroseconds ?? record.timestampMicroseconds
            state.startMicroseconds = start
            // The daemon's clock is the wall clock: a step back is written as no time passing.
            let time = max(record.timestampMicroseconds - start, state.lastTime)
            state.lastTime = time
            let bytes = record.direction == .control ? [] : state.redactor.redact(record.bytes)
            let entry: RecordingEntry
            var replyTo: Int?
            switch record.direction {
            case .tx:
                var request: String?
                if let id = record.request {
                    var text: [UInt8] = []
                    id.encodeJSON(into: &text)
                    request = String(decoding: text, as: UTF8.self)
                }
                entry = RecordingEntry(
                    timeMicroseconds: time,
                    kind: .tx(client: record.client, request: request),
                    bytes: bytes
                )
                state.requestLines[Self.key(record)] = state.nextLine
            case .rx:
                // The daemon names the request that took the frames they end.
                if record.request != nil { replyTo = state.requestLines[Self.key(record)] }
                entry = RecordingEntry(timeMicroseconds: time, kind: .rx(replyTo: nil), bytes: bytes)
            case .control:
                guard let control = record.control else { return }
                entry = RecordingEntry(timeMicroseconds: time, kind: .control(control, client: record.client))
            }
            Self.write(entry.line(replyToLine: replyTo), in: &state)
        }
    }

    func add(state deviceState: DeviceState) {
        let name: String
        switch deviceState {
        case .ready: name = "open"
        case .absent: name = "unplug"
        case .failed, .disabled: name = "close"
        case .opening, .resyncing: return
        }
        state.withLock { state in
            guard state.startMicroseconds != nil else { return }
            let entry = RecordingEntry(timeMicroseconds: state.lastTime, kind: .event(name))
            Self.write(entry.line(replyToLine: nil), in: &state)
        }
    }

    /// A request's identity in the traffic: its client and its id.
    private static func key(_ record: TrafficRecord) -> String {
        var text: [UInt8] = []
        record.request?.encodeJSON(into: &text)
        return "\(record.client ?? 0) " + String(decoding: text, as: UTF8.self)
    }

    private static func write(_ line: [UInt8], in state: inout State) {
        guard state.failure == nil else { return }
        do throws(SyscallError) {
            try FileIO.writeAll(state.fd, line)
            state.nextLine += 1
        } catch {
            state.failure = error.description
        }
    }
}
