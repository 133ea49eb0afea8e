import CAccessoryShims

/// A value behind a lock of our own: a futex word taken and released with one atomic
/// instruction when uncontended (``cas_futex_lock``, in CAccessoryShims).
///
/// Why not the standard library's `Synchronization.Mutex`: on Linux its lock is a futex inside the
/// (uninstrumented) standard library, so ThreadSanitizer cannot see the happens-before edge it
/// creates and reports every access it protects as a race. The shim's atomics are compiled with
/// the package, instrumented under TSan, so a TSan report is a real report. Why not
/// `pthread_mutex_t`: the calls and their checks cost about 110 instructions a lock and unlock,
/// and a socket client's every reply takes its connection's output lock once.
///
/// Any thread. The closure passed to ``withLock(_:)`` must not call `withLock` on the same lock.
public final class Locked<Value: ~Copyable>: @unchecked Sendable {  // @unchecked: `value` is under the lock.
    private let word: UnsafeMutablePointer<UInt32>
    private var value: Value

    public init(_ value: consuming Value) {
        self.value = value
        word = .allocate(capacity: 1)
        word.initialize(to: 0)
    }

    deinit {
        word.deallocate()
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
        cas_futex_lock(word)
    }

    @usableFromInline
    func unlock() {
        cas_futex_unlock(word)
    }
}
