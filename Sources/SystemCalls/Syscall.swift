import CAccessoryShims
import Glibc
import SystemPackage

@_exported import struct SystemPackage.Errno

/// The outcome of a non-blocking call that may have nothing to do yet.
///
/// `EAGAIN`/`EWOULDBLOCK` is not an error on a non-blocking fd: it is `.wouldBlock`, and the caller
/// waits for readiness. Any thread.
public enum IOResult<Value: Sendable & Equatable>: Sendable, Equatable {
    case processed(Value)
    case wouldBlock
}

/// The names of the wrapped calls, used in error messages and by ``FaultInjection`` rules.
public enum SyscallName: String, Sendable, CaseIterable {
    case open, close, read, write, pipe2, flock, fcntl, ioctl
    case epoll_create1, epoll_ctl, epoll_wait
    case eventfd, timerfd_create, timerfd_settime, signalfd
    case socket, socketpair, bind, listen, accept4, connect, sendto, recv, send, getsockopt, setsockopt
    case posix_openpt, inotify_init1, inotify_add_watch, unlink, chmod, chown
    case symlink, rename, readlink, mkdtemp, rmdir, posix_spawn, kill, waitpid
    case link, lstat, getgrnam_r, getpwnam_r, shutdown, recvmsg, unsetenv
    case inotify_rm_watch, opendir, readdir, realpath, mkdir
    case fstat, fstatat, fchmodat, fchownat, linkat, renameat, unlinkat, fork, sigtimedwait, poll
    case fchown, fchmod, symlinkat, readlinkat, mkstemp, sendmsg
    case getsockname, getpeername, getpwuid_r, getgrouplist
    /// `getsockopt` for `SO_PEERGROUPS`, named apart so that a test can fail it alone (a kernel
    /// without it) while `SO_PEERCRED` still works.
    case getsockoptPeerGroups = "getsockopt(SO_PEERGROUPS)"
    /// The modem-line and break ioctls, named apart from other ioctls so that a test can make
    /// them behave as a real UART's would (on a pty they fail with `ENOTTY`).
    case tiocmget = "ioctl(TIOCMGET)"
    case tiocmbis = "ioctl(TIOCMBIS)"
    case tiocmbic = "ioctl(TIOCMBIC)"
    case tiocsbrk = "ioctl(TIOCSBRK)"
    case tioccbrk = "ioctl(TIOCCBRK)"
    /// The line-status ioctls, named apart so that a test can answer them as a UART's driver
    /// would (on a pty they fail with `ENOTTY`).
    case tiocsergetlsr = "ioctl(TIOCSERGETLSR)"
    case tiocgicount = "ioctl(TIOCGICOUNT)"
}

/// A failed system call: which call, and the errno it gave.
///
/// Higher layers map it to their own error enums; `description` is a sentence a person reads.
public struct SyscallError: Error, Sendable, Equatable, CustomStringConvertible {
    public let call: SyscallName
    public let errno: Errno

    public init(_ call: SyscallName, _ errno: Errno) {
        self.call = call
        self.errno = errno
    }

    /// For `EMFILE` and `ENFILE` it also names the limit that was hit and its value
    /// (``DescriptorLimit``): every path that runs out of descriptors says what to raise.
    public var description: String {
        let base = "\(call.rawValue): \(errno.description) (errno \(errno.rawValue))"
        guard let limit = DescriptorLimit.explanation(for: errno) else { return base }
        return "\(base): \(limit)"
    }
}

// The helpers below are `@inline(never)` so that nothing (ARC traffic, a retain/release that
// calls free(), which may set errno) can run between the system call and the read of `errno`.

/// Runs `body` (one system call returning -1 and setting errno on failure) under the policy every
/// wrapper shares: injected faults first, `EINTR` retried, `EAGAIN` returned as `.wouldBlock`
/// when `wouldBlockAllowed`, `EBADF`/`EFAULT` trapped as programmer errors, anything else thrown.
///
/// Any thread.
@inline(never)
@usableFromInline
func syscall<T: FixedWidthInteger & Sendable>(
    _ name: SyscallName,
    fd: CInt = -1,
    wouldBlockAllowed: Bool = false,
    _ body: (_ byteLimit: Int) -> T
) throws(SyscallError) -> IOResult<T> {
    while true {
        let result: T
        var savedErrno: CInt = 0
        if FaultInjection.isActive, let fault = FaultInjection.fault(for: name, fd: fd) {
            switch fault {
            case .error(let e):
                result = -1
                savedErrno = e.rawValue
            case .limit(let n):
                // Short read/write: the wrapper shrinks the buffer it hands the kernel.
                result = body(Swift.max(1, n))
                if result == -1 { savedErrno = Glibc.errno }
            case .answer(let value):
                return .processed(T(truncatingIfNeeded: value))
            }
        } else {
            result = body(Int.max)
            if result == -1 { savedErrno = Glibc.errno }
        }
        if result != -1 { return .processed(result) }
        switch savedErrno {
        case EINTR:
            continue
        case EAGAIN where wouldBlockAllowed:
            return .wouldBlock
        case EBADF, EFAULT:
            preconditionFailure("\(name.rawValue)(fd \(fd)): \(Errno(rawValue: savedErrno)) is a programmer error")
        default:
            throw SyscallError(name, Errno(rawValue: savedErrno))
        }
    }
}

/// As ``syscall(_:fd:wouldBlockAllowed:_:)`` for calls that never report `EAGAIN`.
@inline(__always)
@usableFromInline
func syscallValue<T: FixedWidthInteger & Sendable>(
    _ name: SyscallName,
    fd: CInt = -1,
    _ body: () -> T
) throws(SyscallError) -> T {
    switch try syscall(name, fd: fd, wouldBlockAllowed: false, { _ in body() }) {
    case .processed(let v): return v
    case .wouldBlock: preconditionFailure("unreachable: \(name) cannot report wouldBlock here")
    }
}
