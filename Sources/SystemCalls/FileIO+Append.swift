import Glibc

extension FileIO {
    /// Opens (creating it with `mode` if missing) a regular file to append to, safely in a folder
    /// that others might write to: the last name is never followed if it is a symbolic link
    /// (`O_NOFOLLOW`: `ELOOP`), opening does not wait for a reader if it is a FIFO
    /// (`O_NONBLOCK`: `ENXIO` without one). Close-on-exec. Returns the descriptor and what
    /// `fstat` says of it: the caller refuses anything but a regular file with one name (a hard
    /// link could point into a file it must not write). The corresponding C functions are `open` and
    /// `fstat`. Any thread.
    ///
    /// `creating`: whether a missing file is made (``Creation``); the caller that must not append to
    /// a file someone else made opens with `.never` and creates with `.exclusive`.
    public static func openForAppending(
        _ path: String,
        mode: UInt32,
        creating: Creation = .ifMissing
    ) throws(SyscallError) -> OpenedFile {
        let fd = try open(
            path,
            flags: O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | creating.flags,
            mode: mode_t(mode)
        )
        let status = try status(ofDescriptor: fd.rawValue)
        if status.kind == .regular {
            // Blocking writes from here (a regular file ignores O_NONBLOCK anyway; this states it).
            try setNonBlocking(fd.rawValue, false)
        }
        return OpenedFile(fd: fd, status: status)
    }
}

extension FileIO {
    /// Whether an open makes the file.
    ///
    /// A value. Any thread.
    public enum Creation: Sendable {
        /// Made if missing, opened if there (`O_CREAT`).
        case ifMissing
        /// Opened only if there (`ENOENT` otherwise).
        case never
        /// Made now, or the open fails with `EEXIST` (`O_CREAT | O_EXCL`): the file is certainly
        /// this process's, whoever could write in the folder.
        case exclusive

        var flags: CInt {
            switch self {
            case .ifMissing: O_CREAT
            case .never: 0
            case .exclusive: O_CREAT | O_EXCL
            }
        }
    }
}

/// A file just opened, with what `fstat` said of it.
///
/// Any thread, one owner at a time.
public struct OpenedFile: ~Copyable, Sendable {
    public var fd: OwnedFD
    public let status: FileStatus

    /// The descriptor, for its next owner.
    public consuming func takeDescriptor() -> OwnedFD { fd }
}
