import SystemCalls

/// Why a stream ended by itself (the device went away). Any thread (a value).
public enum GoneReason: Sendable, Equatable, CustomStringConvertible {
    /// `read()` returned 0: the other end closed (a pty master closed, a socket peer shut down).
    case endOfFile
    /// The kernel reported `EPOLLHUP`/`EPOLLERR` and no read or write said more.
    case hangup
    /// A read or write failed (`EIO` from an unplugged tty, `ECONNRESET`, `EPIPE`, …).
    case failed(SyscallError)

    public var description: String {
        switch self {
        case .endOfFile: return "the device closed the connection (end of file)"
        case .hangup: return "the device hung up"
        case .failed(let error): return "the device failed: \(error)"
        }
    }
}
