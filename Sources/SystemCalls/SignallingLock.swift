import Glibc

/// A value behind a `pthread_mutex_t`, with a condition variable to wait on it: a producer
/// changes the value and signals; a consumer thread sleeps until the value says there is work.
/// (``Locked`` has no condition; this is it with one. `pthread_cond_*` is intercepted by
/// ThreadSanitizer, as `pthread_mutex_*` is.)
///
/// Any thread. The closures must not call back into the same lock.
public final class SignallingLock<Value: ~Copyable>: @unchecked Sendable {  // @unchecked: `value` is under `mutex`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value

    public init(_ value: consuming Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var rc = pthread_mutex_init(mutex, nil)
        precondition(rc == 0, "pthread_mutex_init: \(rc)")
        rc = pthread_cond_init(condition, nil)
        precondition(rc == 0, "pthread_cond_init: \(rc)")
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value; if it returns `signal: true`, one waiter
    /// is woken (after the change, before the lock is released).
    public func withLock<R>(_ body: (inout Value) -> (result: R, signal: Bool)) -> R {
        lock()
        let (result, signal) = body(&value)
        if signal { pthread_cond_signal(condition) }
        unlock()
        return result
    }

    /// Waits (sleeping, the lock released meanwhile) until `ready` holds for the value, then runs
    /// `body` with the lock held.
    public func wait<R>(until ready: (borrowing Value) -> Bool, then body: (inout Value) -> R) -> R {
        lock()
        while !ready(value) {
            let rc = pthread_cond_wait(condition, mutex)
            precondition(rc == 0, "pthread_cond_wait: \(rc)")
        }
        let result = body(&value)
        unlock()
        return result
    }

    private func lock() {
        let rc = pthread_mutex_lock(mutex)
        precondition(rc == 0, "pthread_mutex_lock: \(rc)")
    }

    private func unlock() {
        let rc = pthread_mutex_unlock(mutex)
        precondition(rc == 0, "pthread_mutex_unlock: \(rc)")
    }
}
