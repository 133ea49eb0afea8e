import CAccessoryShims
import Glibc

/// A plain thread, started at once; ``join()`` waits for its body to return. For work that may
/// block (writing a file) and for a loop's own thread. Foundation-free.
///
/// Any thread; ``join()`` or ``detach()`` once, from a thread other than its own.
public final class WorkerThread: @unchecked Sendable {  // @unchecked: `thread` is written in init only.
    private var thread = pthread_t()

    /// Heap box for the body: `pthread_create` takes one pointer.
    ///
    /// A value moved to the new thread once.
    private final class Box {
        let name: String
        let body: () -> Void
        init(name: String, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts `body` on a new thread named `name` (its first 15 bytes: the kernel's limit).
    /// The corresponding C function is `pthread_create`.
    public init(name: String, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(name: name, body: body))
        let rc = pthread_create(
            &thread,
            nil,
            { raw in
                let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                _ = box.name.withCString { cas_set_thread_name($0) }
                box.body()
                return nil
            },
            box.toOpaque()
        )
        precondition(rc == 0, "pthread_create: \(rc)")
    }

    /// Waits for the body to return. The corresponding C function is `pthread_join`.
    public func join() {
        let rc = pthread_join(thread, nil)
        precondition(rc == 0, "pthread_join: \(rc)")
    }

    /// Lets the thread's resources go when its body returns, for a thread nobody will join (one
    /// that watches a child process for as long as it runs). The corresponding C function is
    /// `pthread_detach`.
    public func detach() {
        let rc = pthread_detach(thread)
        precondition(rc == 0, "pthread_detach: \(rc)")
    }

    /// Joins the thread if its body has returned, without waiting: true if it had (call no other
    /// join after that), false if it still runs. The corresponding C function is
    /// `pthread_tryjoin_np`.
    public func joinIfEnded() -> Bool {
        let rc = cas_thread_try_join(thread)
        if rc == 0 { return true }
        precondition(rc == EBUSY, "pthread_tryjoin_np: \(rc)")
        return false
    }

    /// Waits at most `limit` (on the monotonic clock) for the body to return: true if it did
    /// (the thread is joined), false if it still runs; the thread is then detached, it ends by
    /// itself and is never joined. Either way, call no other join after this. The corresponding
    /// C functions are `pthread_clockjoin_np` and `pthread_detach`.
    public func join(within limit: Duration) -> Bool {
        let wait = max(limit, .zero).components
        let nanoseconds = UInt64(min(wait.seconds, 1 << 32)) * 1_000_000_000 + UInt64(wait.attoseconds / 1_000_000_000)
        let deadline = MonotonicClock.nowNanoseconds() + nanoseconds
        let rc = cas_thread_join_until(thread, deadline)
        if rc == 0 { return true }
        precondition(rc == ETIMEDOUT, "pthread_clockjoin_np: \(rc)")
        let detached = pthread_detach(thread)
        precondition(detached == 0, "pthread_detach: \(detached)")
        return false
    }
}
