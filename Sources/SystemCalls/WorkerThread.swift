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
}
