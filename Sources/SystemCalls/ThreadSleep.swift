import Glibc

/// Sleeping on a plain thread (not a task): for a watcher thread that polls a child's status.
///
/// Threading: stateless. Any thread (never on a loop thread: it blocks).
public enum ThreadSleep {
    /// Blocks the calling thread for about `milliseconds`. The corresponding C function is
    /// `nanosleep` (an interrupted sleep simply ends early).
    public static func milliseconds(_ milliseconds: Int) {
        var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        _ = nanosleep(&request, nil)
    }
}
