import AccessoryTestSupport
import ControlProtocol
import SystemCalls
import TrafficTrace

/// A sink that keeps what it is given, and can be made to stall inside `write` until released
/// (a disk that hangs).
///
/// Any thread: its state is behind a lock; `write` runs on the writer's thread.
final class RecordingSink: TraceSink, @unchecked Sendable {  // @unchecked: state is under `state`'s lock.
    struct State: Sendable {
        var written: [UInt8] = []
        var stallNextWrite = false
        var stalled = false
        var closed = false
        /// How many writes fail next with "no space left".
        var failNextWrites = 0
    }
    let state = Shared(State())

    func write(record: UnsafeBufferPointer<UInt8>) throws(TraceError) {
        let fail = state.mutate { s in
            guard s.failNextWrites > 0 else { return false }
            s.failNextWrites -= 1
            return true
        }
        if fail { throw TraceError("no space left") }
        let stall = state.mutate { s in
            let stall = s.stallNextWrite
            s.stallNextWrite = false
            s.stalled = stall
            return stall
        }
        if stall {
            // Held until the test releases it (bounded: a test that forgets fails, it does not hang).
            _ = Wait.until(seconds: 20) { !state.value.stalled }
        }
        let bytes = Array(record)
        state.mutate { $0.written += bytes }
    }

    func flush() throws(TraceError) {}

    func close() { state.mutate { $0.closed = true } }

    var text: String { String(decoding: state.value.written, as: UTF8.self) }
    var lines: [String] { text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
}

/// A private temporary folder, removed with what is in it.
///
/// Threading: one test.
struct TemporaryFolder: ~Copyable {
    let path: String

    init() throws {
        path = try FileIO.makeTemporaryDirectory(prefix: "/tmp/accessoryd-trace-")
    }

    var names: [String] { ((try? FileIO.listDirectory(path)) ?? []).sorted() }

    deinit {
        for name in (try? FileIO.listDirectory(path)) ?? [] { try? FileIO.unlink(path + "/" + name) }
        try? FileIO.removeDirectory(path)
    }
}
