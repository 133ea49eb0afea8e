import Glibc

/// inotify, for watching a folder of device links where there is no udev. Any thread.
public enum Inotify {
    /// The `IN_*` bits of a watch request and of a reported event. Any thread (a value).
    public struct Mask: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let create = Mask(rawValue: UInt32(IN_CREATE))
        public static let delete = Mask(rawValue: UInt32(IN_DELETE))
        public static let movedFrom = Mask(rawValue: UInt32(IN_MOVED_FROM))
        public static let movedTo = Mask(rawValue: UInt32(IN_MOVED_TO))
        public static let deleteSelf = Mask(rawValue: UInt32(IN_DELETE_SELF))
        public static let moveSelf = Mask(rawValue: UInt32(IN_MOVE_SELF))
        /// The watched file was opened (for a device node: some program opened the device).
        public static let opened = Mask(rawValue: UInt32(IN_OPEN))
        /// A descriptor of the file was closed for the last time (every copy of it, `dup`ed or
        /// passed to another process, gone): written to, or not.
        public static let closedAfterWriting = Mask(rawValue: UInt32(IN_CLOSE_WRITE))
        public static let closedWithoutWriting = Mask(rawValue: UInt32(IN_CLOSE_NOWRITE))
        /// Reported only: the watch is gone (removed, or its object deleted).
        public static let ignored = Mask(rawValue: UInt32(IN_IGNORED))
        /// Reported only: events were lost because the queue filled up.
        public static let queueOverflow = Mask(rawValue: UInt32(IN_Q_OVERFLOW))
        /// Reported only: the entry named is a directory.
        public static let isDirectory = Mask(rawValue: UInt32(IN_ISDIR))
        /// Request only: fail with `ENOTDIR` unless the path is a directory.
        public static let onlyDirectory = Mask(rawValue: UInt32(IN_ONLYDIR))
    }

    /// One event: which watch, what happened, and the entry's name inside the watched folder
    /// (empty for events about the folder itself). Any thread (a value).
    public struct Event: Sendable, Equatable {
        public var watch: CInt
        public var mask: Mask
        /// Pairs an `IN_MOVED_FROM` with its `IN_MOVED_TO`.
        public var cookie: UInt32
        public var name: String

        public init(watch: CInt, mask: Mask, cookie: UInt32 = 0, name: String = "") {
            self.watch = watch
            self.mask = mask
            self.cookie = cookie
            self.name = name
        }
    }

    /// The corresponding C function is `inotify_init1` (non-blocking, close-on-exec).
    public static func create() throws(SyscallError) -> OwnedFD {
        OwnedFD(adopting: try syscallValue(.inotify_init1) { inotify_init1(CInt(IN_NONBLOCK) | CInt(IN_CLOEXEC)) })
    }

    /// Starts watching `path` and returns the watch number. The corresponding C function is
    /// `inotify_add_watch`.
    public static func addWatch(_ fd: CInt, path: String, mask: Mask) throws(SyscallError) -> CInt {
        try syscallValue(.inotify_add_watch, fd: fd) { inotify_add_watch(fd, path, mask.rawValue) }
    }

    /// Stops a watch. A watch the kernel already dropped (its folder was deleted: `EINVAL`) is not
    /// an error. The corresponding C function is `inotify_rm_watch`.
    public static func removeWatch(_ fd: CInt, watch: CInt) throws(SyscallError) {
        do {
            _ = try syscallValue(.inotify_rm_watch, fd: fd) { inotify_rm_watch(fd, watch) }
        } catch  where error.errno == .invalidArgument {
            return
        }
    }

    /// Reads the queued events; `nil` when there are none (would block). The corresponding C
    /// function is `read`.
    public static func readEvents(_ fd: CInt) throws(SyscallError) -> [Event]? {
        // Room for at least 16 events with the longest names; the rest stay queued for the next read.
        var buffer = [UInt8](repeating: 0, count: 16 * (MemoryLayout<inotify_event>.size + Int(NAME_MAX) + 1))
        let r: Result<IOResult<Int>, SyscallError> = buffer.withUnsafeMutableBytes { buf in
            do throws(SyscallError) { return .success(try FileIO.read(fd, into: buf)) } catch { return .failure(error) }
        }
        switch try r.get() {
        case .wouldBlock: return nil
        case .processed(let n): return buffer.withUnsafeBytes { parse(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
        }
    }

    /// Splits what one `read` returned into events (`struct inotify_event` records, each followed
    /// by its NUL-padded name). A truncated trailing record is dropped. Any thread.
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> [Event] {
        let headerSize = MemoryLayout<inotify_event>.size
        var events: [Event] = []
        var offset = 0
        while offset + headerSize <= bytes.count {
            let header = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
            let nameStart = offset + headerSize
            let nameEnd = nameStart + Int(header.len)
            guard nameEnd <= bytes.count else { break }
            let nameBytes = bytes[nameStart..<nameEnd].prefix { $0 != 0 }
            events.append(
                Event(
                    watch: header.wd,
                    mask: Mask(rawValue: header.mask),
                    cookie: header.cookie,
                    name: String(decoding: nameBytes, as: UTF8.self)
                )
            )
            offset = nameEnd
        }
        return events
    }
}
