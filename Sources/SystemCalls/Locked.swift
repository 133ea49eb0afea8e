import Glibc

/// A value behind a `pthread_mutex_t`.
///
/// Why not the standard library's `Synchronization.Mutex`: on Linux its lock is a futex inside the
/// (uninstrumented) standard library, so ThreadSanitizer cannot see the happens-before edge it
/// creates and reports every access it protects as a race. `pthread_mutex_lock` is intercepted by
/// TSan, so with this lock a TSan report is a real report. The cost is the same uncontended.
///
/// Any thread. The closure passed to ``withLock(_:)`` must not call `withLock` on the same lock.
public final class Locked<Value: ~Copyable>: @unchecked Sendable {  // @unchecked: `value` is under `mutex`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: consuming Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let rc = pthread_mutex_init(mutex, nil)
        precondition(rc == 0, "pthread_mutex_init: \(rc)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    public func withLock<R: ~Copyable, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        lock()
        defer { unlock() }
        return try body(&valueStorage)
    }

    @usableFromInline
    var valueStorage: Value {
        _read { yield value }
        _modify { yield &value }
    }

    @usableFromInline
    func lock() {
        let rc = pthread_mutex_lock(mutex)
        precondition(rc == 0, "pthread_mutex_lock: \(rc)")
    }

    @usableFromInline
    func unlock() {
        let rc = pthread_mutex_unlock(mutex)
        precondition(rc == 0, "pthread_mutex_unlock: \(rc)")
    }
}
