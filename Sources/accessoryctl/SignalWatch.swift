import Glibc
import IOLoop
import SystemCalls

/// SIGINT and SIGTERM as something a task can await, so that `monitor` ends cleanly (exit 0)
/// on Ctrl-C or `kill`. Installing it replaces the default action (death) for both signals for
/// the rest of the process.
///
/// Threading: any thread. The signal pipe is read on a small loop thread of its own.
final class SignalWatch: Sendable {
    /// Signals not yet awaited, and the task awaiting one.
    ///
    /// Threading: a value, only touched under `state`'s lock.
    private struct State {
        var delivered: [CInt] = []
        var waiter: CheckedContinuation<CInt?, Never>?
        var stopped = false
    }

    private let state = Locked(State())

    private init() {}

    /// Starts watching SIGINT and SIGTERM. Call once per process.
    static func startForInterrupts() throws(SyscallError) -> SignalWatch {
        try start([SIGINT, SIGTERM])
    }

    /// Starts watching `signals`. Call once per process.
    static func start(_ signals: [CInt]) throws(SyscallError) -> SignalWatch {
        let watch = SignalWatch()
        let loop = try IOLoop.spawn(name: "ctl-signals")
        let readEnd = try SignalPipe.install(signals).release()
        loop.perform {
            _ = try? loop.addSource(owning: OwnedFD(adopting: readEnd), interest: .readable) { _ in
                while let signal = try? SignalPipe.next(readEnd) { watch.deliver(signal) }
            }
        }
        return watch
    }

    /// The next signal delivered, or nil once the waiting task is cancelled.
    func next() async -> CInt? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<CInt?, Never>) in
                let now: CInt?? = state.withLock { state in
                    if state.stopped { return .some(nil) }
                    if !state.delivered.isEmpty { return state.delivered.removeFirst() }
                    state.waiter = continuation
                    return .none
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.stopped = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    private func deliver(_ signal: CInt) {
        let waiter = state.withLock { state in
            guard let waiter = state.waiter else {
                state.delivered.append(signal)
                return CheckedContinuation<CInt?, Never>?.none
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: signal)
    }
}
