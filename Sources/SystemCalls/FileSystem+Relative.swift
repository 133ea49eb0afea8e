import Glibc

/// Calls on a name inside a directory held open by descriptor (the `*at` family).
///
/// A name resolved from a directory descriptor stays in that directory even if someone renames
/// the directory or replaces its path with a symbolic link meanwhile: the way to create and
/// adjust files without a window in which another user could redirect a call by swapping names.
/// Any thread.
extension FileIO {
    /// Opens the directory `path` for use with the calls below: `O_DIRECTORY | O_NOFOLLOW`, so a
    /// symbolic link at `path` is refused (`ELOOP`) rather than followed. The corresponding C
    /// function is `open`.
    public static func openDirectory(_ path: String) throws(SyscallError) -> OwnedFD {
        try open(path, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
    }

    /// The status of the open file `fd`. The corresponding C function is `fstat`.
    public static func status(ofDescriptor fd: CInt) throws(SyscallError) -> FileStatus {
        var st = stat()
        _ = try syscallValue(.fstat, fd: fd) { Glibc.fstat(fd, &st) }
        return FileStatus(st)
    }

    /// The status of `name` in `directory` itself (a symbolic link is reported, not followed), or
    /// `nil` when there is no such name. The corresponding C function is `fstatat` with
    /// `AT_SYMLINK_NOFOLLOW`.
    public static func status(of name: String, in directory: CInt) throws(SyscallError) -> FileStatus? {
        var st = stat()
        do {
            _ = try syscallValue(.fstatat, fd: directory) { Glibc.fstatat(directory, name, &st, AT_SYMLINK_NOFOLLOW) }
        } catch  where error.errno == .noSuchFileOrDirectory {
            return nil
        }
        return FileStatus(st)
    }

    /// Sets the permission bits of `name` in `directory`. Linux cannot change a symbolic link's
    /// own mode, so `name` must be in a directory only this process's user may write (then it
    /// cannot have been replaced by a link). The corresponding C function is `fchmodat`.
    public static func changeMode(of name: String, in directory: CInt, to mode: UInt32) throws(SyscallError) {
        _ = try syscallValue(.fchmodat, fd: directory) { Glibc.fchmodat(directory, name, mode_t(mode), 0) }
    }

    /// Sets the owner and/or group (`nil` leaves one unchanged) of `name` in `directory` itself:
    /// a symbolic link's own ownership is changed, never its target's. The corresponding C
    /// function is `fchownat` with `AT_SYMLINK_NOFOLLOW`.
    public static func changeOwner(
        of name: String,
        in directory: CInt,
        owner: UInt32? = nil,
        group: UInt32? = nil
    ) throws(SyscallError) {
        _ = try syscallValue(.fchownat, fd: directory) {
            Glibc.fchownat(directory, name, owner ?? UInt32.max, group ?? UInt32.max, AT_SYMLINK_NOFOLLOW)
        }
    }

    /// Gives `name` in `directory` a second name, `newPath` (relative names from the current
    /// directory); fails with `EEXIST` if `newPath` exists. A symbolic link `name` is linked
    /// itself, not followed. The corresponding C function is `linkat`.
    public static func link(_ name: String, in directory: CInt, as newPath: String) throws(SyscallError) {
        _ = try syscallValue(.linkat, fd: directory) { Glibc.linkat(directory, name, AT_FDCWD, newPath, 0) }
    }

    /// Renames `name` in `directory` to `newPath`, atomically replacing `newPath` if it exists.
    /// The corresponding C function is `renameat`.
    public static func rename(_ name: String, in directory: CInt, to newPath: String) throws(SyscallError) {
        _ = try syscallValue(.renameat, fd: directory) { Glibc.renameat(directory, name, AT_FDCWD, newPath) }
    }

    /// Removes the name `name` from `directory` (not a directory). The corresponding C function is
    /// `unlinkat`.
    public static func unlink(_ name: String, in directory: CInt) throws(SyscallError) {
        _ = try syscallValue(.unlinkat, fd: directory) { Glibc.unlinkat(directory, name, 0) }
    }
}
