import Glibc

/// The one owner of an open file descriptor.
///
/// `~Copyable`, so it cannot be duplicated; `close()` and `release()` consume it, so it cannot be
/// closed twice. Dropping an `OwnedFD` without either closes it as a last resort. Holders that
/// must close later (an event loop's table, say) store it as `OwnedFD?` and close via `take()`.
///
/// Any thread, but one owner at a time (it is moved, never shared).
public struct OwnedFD: ~Copyable, Sendable {
    /// The descriptor number, for passing to system calls. Valid until this owner is consumed.
    public let rawValue: CInt

    /// Takes ownership of `rawValue`, which the caller must not close.
    public init(adopting rawValue: CInt) {
        precondition(rawValue >= 0, "OwnedFD needs an open descriptor, got \(rawValue)")
        self.rawValue = rawValue
    }

    /// Closes the descriptor.
    ///
    /// `EINTR` is ignored: on Linux the descriptor is released before `close` can be interrupted,
    /// and retrying could close a number another thread has just been given. `EIO` and others are
    /// reported by the kernel only for data already lost; they are ignored for the same reason.
    public consuming func close() {
        OwnedFD.closeRaw(rawValue)
        discard self
    }

    /// Gives up ownership without closing and returns the number (for handing to another owner).
    public consuming func release() -> CInt {
        let fd = rawValue
        discard self
        return fd
    }

    deinit {
        OwnedFD.closeRaw(rawValue)
    }

    @usableFromInline
    static func closeRaw(_ fd: CInt) {
        if Glibc.close(fd) == -1 {
            let e = Glibc.errno
            precondition(e != EBADF, "close(\(fd)): EBADF: the descriptor was closed twice or never opened")
        }
    }
}
