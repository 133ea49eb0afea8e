import CAccessoryShims
import Glibc

/// What a pty view needs beyond ``PseudoTerminal/open()``: the slave's owner and mode set through
/// a descriptor, the master's hang-up state, and links made and replaced inside a directory held
/// open (so that no call acts on a name another user could swap meanwhile). Any thread.
extension PseudoTerminal {
    /// The slave path (`/dev/pts/N`) of the pty master `fd`: for a master kept across a restart.
    /// The corresponding C function is `ptsname_r`. Any thread.
    public static func slavePath(ofMaster fd: CInt) throws(SyscallError) -> String {
        var name = [CChar](repeating: 0, count: 64)
        _ = try syscallValue(.ioctl, fd: fd) {
            name.withUnsafeMutableBufferPointer { cas_ptsname(fd, $0.baseAddress, $0.count) }
        }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Opens the slave `path` for the daemon's own set-up (`O_NOCTTY`: it never becomes this
    /// process's controlling terminal; `O_NONBLOCK`). The corresponding C function is `open`.
    public static func openSlave(_ path: String) throws(SyscallError) -> OwnedFD {
        try FileIO.open(path, flags: O_RDWR | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW)
    }

    /// Whether the master reports a hang-up: no program has the slave open (after it was opened
    /// once). A poll with a zero timeout; the corresponding C function is `poll`.
    public static func isHungUp(master fd: CInt) throws(SyscallError) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = try syscallValue(.poll, fd: fd) { Glibc.poll(&entry, 1, 0) }
        return Int32(entry.revents) & Int32(POLLHUP) != 0
    }
}

extension FileIO {
    /// Sets the owner and/or group (`nil` leaves one unchanged) of the open file `fd`. The
    /// corresponding C function is `fchown`.
    public static func changeOwner(ofDescriptor fd: CInt, owner: UInt32?, group: UInt32?) throws(SyscallError) {
        _ = try syscallValue(.fchown, fd: fd) { Glibc.fchown(fd, owner ?? UInt32.max, group ?? UInt32.max) }
    }

    /// Sets the permission bits of the open file `fd`. The corresponding C function is `fchmod`.
    public static func changeMode(ofDescriptor fd: CInt, to mode: UInt32) throws(SyscallError) {
        _ = try syscallValue(.fchmod, fd: fd) { Glibc.fchmod(fd, mode_t(mode)) }
    }

    /// Creates a symbolic link `name` in `directory` pointing to `target`; fails with `EEXIST`
    /// if the name is taken (never replaces or follows anything). The corresponding C function is
    /// `symlinkat`.
    public static func symlink(target: String, named name: String, in directory: CInt) throws(SyscallError) {
        _ = try syscallValue(.symlinkat, fd: directory) { Glibc.symlinkat(target, directory, name) }
    }

    /// The target of the symbolic link `name` in `directory`. The corresponding C function is
    /// `readlinkat`.
    public static func readLink(_ name: String, in directory: CInt) throws(SyscallError) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = try syscallValue(.readlinkat, fd: directory) {
            buffer.withUnsafeMutableBufferPointer { Glibc.readlinkat(directory, name, $0.baseAddress!, $0.count - 1) }
        }
        return String(decoding: buffer[..<Int(n)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Renames `name` to `newName`, both in `directory`, atomically replacing `newName` (the
    /// name itself: a symbolic link there is replaced, not followed). The corresponding C
    /// function is `renameat`.
    public static func rename(_ name: String, to newName: String, in directory: CInt) throws(SyscallError) {
        _ = try syscallValue(.renameat, fd: directory) { Glibc.renameat(directory, name, directory, newName) }
    }
}
