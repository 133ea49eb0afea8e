import Glibc
import IOLoop
import SystemCalls

/// Bounded waiting for tests: poll a condition until it holds or a deadline passes.
///
/// Any thread. Never waits forever: every helper takes a time limit.
package enum Wait {
    /// Polls `condition` every millisecond until it is true or `seconds` pass. Returns whether it
    /// became true.
    @discardableResult
    package static func until(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        let deadline = MonotonicNow.seconds() + seconds
        while MonotonicNow.seconds() < deadline {
            if condition() { return true }
            usleep(1000)
        }
        return condition()
    }

    /// The same wait for async tests: between polls it suspends (`Task.sleep`) instead of
    /// blocking, so the cooperative threads the code under test may need stay free.
    @discardableResult
    package static func until(seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
        let deadline = MonotonicNow.seconds() + seconds
        while MonotonicNow.seconds() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return condition()
    }

    /// Runs `body` on `loop` and blocks the calling thread until it has run (bounded). Returns
    /// the body's value, or nil on timeout.
    package static func onLoop<T: Sendable>(_ loop: IOLoop, seconds: Double = 10, _ body: @escaping @Sendable () -> T)
        -> T?
    {
        let box = Locked<T?>(nil)
        loop.perform { box.withLock { $0 = body() } }
        var out: T?
        until(seconds: seconds) {
            out = box.withLock { $0 }
            return out != nil
        }
        return out
    }
}

/// Monotonic seconds, for test deadlines. Any thread.
package enum MonotonicNow {
    package static func seconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// A value shared between a test thread and a loop thread, guarded by a mutex.
///
/// Any thread.
package final class Shared<Value: Sendable>: Sendable {
    private let storage: Locked<Value>
    package init(_ value: Value) { storage = Locked(value) }
    package var value: Value { storage.withLock { $0 } }
    package func mutate<R: Sendable>(_ body: (inout Value) -> R) -> R { storage.withLock { body(&$0) } }
}
