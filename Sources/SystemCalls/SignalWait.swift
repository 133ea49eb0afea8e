import Glibc

/// Taking signals synchronously: a thread blocks them (threads started later inherit the mask)
/// and one thread waits for them, with an optional time limit.
///
/// Threading: ``block(_:)`` on the main thread before any other thread starts; ``next(of:timeoutNanoseconds:)``
/// on the one thread that takes the signals.
public enum SignalWait {
    /// Blocks `signals` for the calling thread. The corresponding C function is `pthread_sigmask`.
    public static func block(_ signals: [CInt]) {
        var mask = set(of: signals)
        pthread_sigmask(SIG_BLOCK, &mask, nil)
    }

    /// Waits until one of `signals` (which must be blocked) is pending and takes it, or until
    /// `timeoutNanoseconds` have passed (nil: no limit). Returns the signal, or nil on time-out.
    /// The corresponding C function is `sigtimedwait`.
    public static func next(of signals: [CInt], timeoutNanoseconds: UInt64?) throws(SyscallError) -> CInt? {
        var mask = set(of: signals)
        var timeout = timespec()
        if let t = timeoutNanoseconds {
            timeout.tv_sec = Int(t / 1_000_000_000)
            timeout.tv_nsec = Int(t % 1_000_000_000)
        }
        do {
            return try syscallValue(.sigtimedwait) {
                timeoutNanoseconds == nil ? sigwaitinfo(&mask, nil) : sigtimedwait(&mask, nil, &timeout)
            }
        } catch  where error.errno == .resourceTemporarilyUnavailable {
            return nil
        }
    }

    private static func set(of signals: [CInt]) -> sigset_t {
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in signals { sigaddset(&mask, s) }
        return mask
    }
}
