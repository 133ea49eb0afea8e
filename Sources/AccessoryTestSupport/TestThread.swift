import Glibc

/// A Foundation-free thread for tests: starts at once, `join()` waits for it.
///
/// Any thread.
package final class TestThread: @unchecked Sendable {  // @unchecked: `tid` is set in init, read by join.
    private var tid = pthread_t()
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    package init(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(body))
        let rc = pthread_create(
            &tid,
            nil,
            { raw in
                Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
                return nil
            },
            box.toOpaque()
        )
        precondition(rc == 0, "pthread_create: \(rc)")
    }

    package func join() { pthread_join(tid, nil) }
}
