import CAccessoryShims
import Glibc

/// Thin wrappers over epoll. Any thread (the loop decides who calls them).
public enum Epoll {
    /// Readiness bits, as in `epoll_event.events`.
    public struct Events: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        // Computed, not stored: a stored static is a lazy global, and every read of one went
        // through its once-check (five a wake-up).
        public static var readable: Events { Events(rawValue: CAS_EPOLLIN) }
        public static var writable: Events { Events(rawValue: CAS_EPOLLOUT) }
        public static var error: Events { Events(rawValue: CAS_EPOLLERR) }
        public static var hangup: Events { Events(rawValue: CAS_EPOLLHUP) }
        public static var readHangup: Events { Events(rawValue: CAS_EPOLLRDHUP) }
    }

    /// One delivered event: the bits and the 64-bit cookie given at registration.
    public struct Event: Sendable, Equatable {
        public var events: Events
        public var data: UInt64
    }

    /// The corresponding C function is `epoll_create1` (always `EPOLL_CLOEXEC`).
    public static func create() throws(SyscallError) -> OwnedFD {
        OwnedFD(adopting: try syscallValue(.epoll_create1) { epoll_create1(CAS_EPOLL_CLOEXEC) })
    }

    public enum Operation: CInt, Sendable {
        case add = 1  // EPOLL_CTL_ADD
        case delete = 2  // EPOLL_CTL_DEL
        case modify = 3  // EPOLL_CTL_MOD
    }

    /// The corresponding C function is `epoll_ctl`.
    public static func control(_ epfd: CInt, _ op: Operation, fd: CInt, events: Events, data: UInt64)
        throws(SyscallError)
    {
        _ = try syscallValue(.epoll_ctl, fd: fd) { cas_epoll_ctl(epfd, op.rawValue, fd, events.rawValue, data) }
    }

    /// Waits up to `timeoutMilliseconds` (-1 forever, 0 poll) and fills the two buffers. Returns
    /// how many events arrived. `EINTR` is reported as 0 events (the loop re-evaluates its timers).
    /// The corresponding C function is `epoll_wait`.
    public static func wait(
        _ epfd: CInt,
        events: UnsafeMutableBufferPointer<UInt32>,
        data: UnsafeMutableBufferPointer<UInt64>,
        timeoutMilliseconds: CInt
    ) throws(SyscallError) -> Int {
        var max = CInt(Swift.min(events.count, data.count, 256))
        // The fault seam, by hand: this call does not retry EINTR (the loop wants the early
        // return), so it cannot go through `syscall`. `.limit(n)` hands out at most n events.
        if FaultInjection.isActive, let fault = FaultInjection.fault(for: .epoll_wait, fd: epfd) {
            switch fault {
            case .error(.interrupted): return 0
            case .error(let e): throw SyscallError(.epoll_wait, e)
            case .limit(let n): max = CInt(Swift.max(1, Swift.min(Int(max), n)))
            case .answer: break  // Events cannot be made up: the call goes to the kernel.
            }
        }
        let n = cas_epoll_wait(epfd, events.baseAddress, data.baseAddress, max, timeoutMilliseconds)
        if n >= 0 { return Int(n) }
        let e = Glibc.errno
        if e == EINTR { return 0 }
        if e == EBADF || e == EFAULT { preconditionFailure("epoll_wait(\(epfd)): \(Errno(rawValue: e))") }
        throw SyscallError(.epoll_wait, Errno(rawValue: e))
    }
}

/// Thin wrappers over eventfd, the loop's wake-up. Any thread.
public enum EventFD {
    /// The corresponding C function is `eventfd` (non-blocking, close-on-exec).
    public static func create() throws(SyscallError) -> OwnedFD {
        OwnedFD(adopting: try syscallValue(.eventfd) { cas_eventfd(0, CAS_EFD_CLOEXEC | CAS_EFD_NONBLOCK) })
    }

    /// Adds one to the counter. A full counter (`EAGAIN`) already means "wake up", so it is not an
    /// error. The corresponding C function is `write`.
    public static func signal(_ fd: CInt) throws(SyscallError) {
        var one: UInt64 = 1
        _ = try syscall(.write, fd: fd, wouldBlockAllowed: true) { _ in Glibc.write(fd, &one, 8) }
    }

    /// Reads and resets the counter; 0 when it was already zero. The corresponding C function is
    /// `read`.
    public static func drain(_ fd: CInt) throws(SyscallError) -> UInt64 {
        var value: UInt64 = 0
        switch try syscall(.read, fd: fd, wouldBlockAllowed: true, { _ in Glibc.read(fd, &value, 8) }) {
        case .processed: return value
        case .wouldBlock: return 0
        }
    }
}

/// Thin wrappers over timerfd, armed at absolute monotonic deadlines. Any thread.
public enum TimerFD {
    /// The corresponding C function is `timerfd_create` (`CLOCK_MONOTONIC`).
    public static func create() throws(SyscallError) -> OwnedFD {
        OwnedFD(
            adopting: try syscallValue(.timerfd_create) {
                timerfd_create(CLOCK_MONOTONIC, CAS_TFD_CLOEXEC | CAS_TFD_NONBLOCK)
            }
        )
    }

    /// Arms the timer at `deadline` (nanoseconds of `CLOCK_MONOTONIC`), or disarms it for `nil`.
    /// The corresponding C function is `timerfd_settime`.
    public static func set(_ fd: CInt, deadline: UInt64?) throws(SyscallError) {
        if let deadline {
            _ = try syscallValue(.timerfd_settime, fd: fd) { cas_timerfd_settime_abs(fd, deadline) }
        } else {
            _ = try syscallValue(.timerfd_settime, fd: fd) { cas_timerfd_disarm(fd) }
        }
    }

    /// Reads the expiry count (resets readiness); 0 if nothing expired.
    public static func drain(_ fd: CInt) throws(SyscallError) -> UInt64 {
        try EventFD.drain(fd)
    }
}

/// Monotonic time in nanoseconds, as the loop's timers use it. Any thread.
public enum MonotonicClock {
    @inline(__always)
    public static func nowNanoseconds() -> UInt64 { cas_monotonic_now_ns() }
}

/// Signals delivered as readable events on a descriptor. Any thread.
public enum SignalFD {
    /// Blocks `signals` for the calling thread (threads created later inherit the mask) and returns
    /// a signalfd that reports them. The corresponding C function is `signalfd`.
    public static func create(_ signals: [CInt]) throws(SyscallError) -> OwnedFD {
        _ = signals.withUnsafeBufferPointer { cas_sigprocmask_block($0.baseAddress, CInt($0.count)) }
        let fd = try syscallValue(.signalfd) {
            signals.withUnsafeBufferPointer {
                cas_signalfd(-1, $0.baseAddress, CInt($0.count), CAS_SFD_CLOEXEC | CAS_SFD_NONBLOCK)
            }
        }
        return OwnedFD(adopting: fd)
    }

    /// Reads one pending signal number, or `nil` when none is pending.
    public static func next(_ fd: CInt) throws(SyscallError) -> CInt? {
        var info = signalfd_siginfo()
        switch try syscall(
            .read,
            fd: fd,
            wouldBlockAllowed: true,
            { _ in
                Glibc.read(fd, &info, MemoryLayout<signalfd_siginfo>.size)
            }
        ) {
        case .processed(let n) where n == MemoryLayout<signalfd_siginfo>.size: return CInt(info.ssi_signo)
        default: return nil
        }
    }
}
