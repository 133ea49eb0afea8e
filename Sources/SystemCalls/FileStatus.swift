import Glibc

/// What `lstat`/`stat` reports about a file name: its kind, permission bits, owner and identity.
///
/// Any thread (a value).
public struct FileStatus: Sendable, Equatable {
    /// The file's type (the `S_IFMT` bits).
    public enum Kind: String, Sendable, Equatable {
        case regular = "a regular file"
        case directory = "a directory"
        case symbolicLink = "a symbolic link"
        case socket = "a socket"
        case characterDevice = "a character device"
        case blockDevice = "a block device"
        case fifo = "a FIFO"
        case unknown = "a file of unknown type"
    }

    public var kind: Kind
    /// The permission bits (`mode & 0o7777`).
    public var permissions: UInt32
    public var owner: UInt32
    public var group: UInt32
    /// The device and inode numbers: together they identify the file (a name replaced by another
    /// file gives a different pair).
    public var device: UInt64
    public var inode: UInt64
    /// The size in bytes.
    public var size: Int64
    /// How many names the file has (hard links).
    public var linkCount: UInt64
    /// For a device node, the major number of the device it stands for (`major(st_rdev)`): the
    /// driver, as `/proc/devices` names it. 0 for other files.
    public var deviceMajor: UInt32
    /// For a device node, the whole device number it stands for (`st_rdev`); 0 for other files.
    public var deviceNumber: UInt64 = 0

    /// A status with these fields (tests state the cases a rule must judge this way).
    public init(
        kind: Kind,
        permissions: UInt32,
        owner: UInt32,
        group: UInt32 = 0,
        device: UInt64 = 0,
        inode: UInt64 = 0,
        size: Int64 = 0,
        linkCount: UInt64 = 1,
        deviceMajor: UInt32 = 0
    ) {
        self.deviceMajor = deviceMajor
        self.kind = kind
        self.permissions = permissions
        self.owner = owner
        self.group = group
        self.device = device
        self.inode = inode
        self.size = size
        self.linkCount = linkCount
    }

    init(_ st: stat) {
        switch st.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        case S_IFSOCK: kind = .socket
        case S_IFCHR: kind = .characterDevice
        case S_IFBLK: kind = .blockDevice
        case S_IFIFO: kind = .fifo
        default: kind = .unknown
        }
        permissions = UInt32(st.st_mode & 0o7777)
        owner = st.st_uid
        group = st.st_gid
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        linkCount = UInt64(st.st_nlink)
        let rdev = UInt64(st.st_rdev)
        deviceNumber = kind == .characterDevice || kind == .blockDevice ? rdev : 0
        // glibc's major(): the macro is not imported into Swift.
        deviceMajor =
            kind == .characterDevice || kind == .blockDevice
            ? UInt32(truncatingIfNeeded: ((rdev >> 8) & 0xfff) | ((rdev >> 32) & 0xffff_f000)) : 0
    }
}

extension FileIO {
    /// The status of `path` itself (a symbolic link is reported as one, not followed), or `nil`
    /// when nothing has that name (`ENOENT`). The corresponding C function is `lstat`. Any thread.
    public static func status(ofPath path: String) throws(SyscallError) -> FileStatus? {
        var st = stat()
        do {
            _ = try syscallValue(.lstat) { Glibc.lstat(path, &st) }
        } catch  where error.errno == .noSuchFileOrDirectory {
            return nil
        }
        return FileStatus(st)
    }

    /// The status of the file `path` leads to (symbolic links followed, as `open` does), or `nil`
    /// when nothing is there (`ENOENT`). The corresponding C function is `fstatat` (`AT_FDCWD`, links followed). Any thread.
    public static func status(followingLinks path: String) throws(SyscallError) -> FileStatus? {
        var st = stat()
        do {
            _ = try syscallValue(.fstatat) { fstatat(AT_FDCWD, path, &st, 0) }
        } catch  where error.errno == .noSuchFileOrDirectory {
            return nil
        }
        return FileStatus(st)
    }

    /// Sets the permission bits of `path`. The corresponding C function is `chmod`. Any thread.
    public static func changeMode(_ path: String, to mode: UInt32) throws(SyscallError) {
        _ = try syscallValue(.chmod) { Glibc.chmod(path, mode_t(mode)) }
    }

    /// Sets the owner and/or group of `path` (`nil` leaves that one unchanged). The corresponding
    /// C function is `chown`. Any thread.
    public static func changeOwner(_ path: String, owner: UInt32? = nil, group: UInt32? = nil) throws(SyscallError) {
        _ = try syscallValue(.chown) {
            Glibc.chown(path, owner ?? UInt32.max, group ?? UInt32.max)
        }
    }

    /// Gives the file `existing` a second name, `newName`; fails with `EEXIST` if `newName`
    /// exists (so it never replaces anything). The corresponding C function is `link`. Any thread.
    public static func link(_ existing: String, as newName: String) throws(SyscallError) {
        _ = try syscallValue(.link) { Glibc.link(existing, newName) }
    }

    /// Sets `FD_CLOEXEC` on `fd` (for descriptors inherited from a parent, such as systemd's
    /// socket-activation fds). The corresponding C function is `fcntl`. Any thread.
    public static func setCloseOnExec(_ fd: CInt) throws(SyscallError) {
        let flags = try syscallValue(.fcntl, fd: fd) { Glibc.fcntl(fd, F_GETFD) }
        if flags & FD_CLOEXEC == 0 {
            _ = try syscallValue(.fcntl, fd: fd) { Glibc.fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
    }
}
