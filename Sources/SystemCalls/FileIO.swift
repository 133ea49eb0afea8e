import CAccessoryShims
import Glibc

/// Descriptor-level file calls: open, read, write, pipes, locks. Any thread.
public enum FileIO {
    /// Opens `path`; `O_CLOEXEC` is always added. The corresponding C function is `open`.
    public static func open(_ path: String, flags: CInt, mode: mode_t = 0) throws(SyscallError) -> OwnedFD {
        let fd = try syscallValue(.open) { Glibc.open(path, flags | O_CLOEXEC, mode) }
        return OwnedFD(adopting: fd)
    }

    /// Reads up to `buffer.count` bytes. `.processed(0)` is end of file. The corresponding C
    /// function is `read`.
    @inline(never)
    public static func read(_ fd: CInt, into buffer: UnsafeMutableRawBufferPointer) throws(SyscallError) -> IOResult<
        Int
    > {
        try syscall(.read, fd: fd, wouldBlockAllowed: true) { cap in
            cas_read(fd, buffer.baseAddress, Swift.min(buffer.count, cap))
        }
    }

    /// Writes up to `buffer.count` bytes; a short count is normal. The corresponding C function is
    /// `write`.
    @inline(never)
    public static func write(_ fd: CInt, from buffer: UnsafeRawBufferPointer) throws(SyscallError) -> IOResult<Int> {
        try syscall(.write, fd: fd, wouldBlockAllowed: true) { cap in
            cas_write(fd, buffer.baseAddress, Swift.min(buffer.count, cap))
        }
    }

    /// Convenience: writes `bytes` (possibly partially). Any thread.
    public static func write(_ fd: CInt, _ bytes: [UInt8]) throws(SyscallError) -> IOResult<Int> {
        // `withUnsafeBytes` is rethrows-untyped; carry the typed result out by hand.
        let r: Result<IOResult<Int>, SyscallError> = bytes.withUnsafeBytes { buf in
            do throws(SyscallError) { return .success(try write(fd, from: buf)) } catch { return .failure(error) }
        }
        return try r.get()
    }

    /// Convenience: reads up to `max` bytes into a new array; `nil` means would block, `[]` end of
    /// file. Any thread.
    public static func read(_ fd: CInt, max: Int) throws(SyscallError) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: max)
        let r: Result<IOResult<Int>, SyscallError> = out.withUnsafeMutableBytes { buf in
            do throws(SyscallError) { return .success(try read(fd, into: buf)) } catch { return .failure(error) }
        }
        switch try r.get() {
        case .wouldBlock: return nil
        case .processed(let n):
            out.removeSubrange(n...)
            return out
        }
    }

    /// A pipe, both ends non-blocking and close-on-exec. The corresponding C function is `pipe2`.
    public static func pipe() throws(SyscallError) -> DescriptorPair {
        var fds: [CInt] = [-1, -1]
        _ = try syscallValue(.pipe2) {
            fds.withUnsafeMutableBufferPointer { cas_pipe2($0.baseAddress, O_CLOEXEC | O_NONBLOCK) }
        }
        return DescriptorPair(OwnedFD(adopting: fds[0]), OwnedFD(adopting: fds[1]))
    }

    /// Takes an exclusive advisory lock without waiting; `false` when another holder has it.
    /// The corresponding C function is `flock`.
    public static func lockExclusive(_ fd: CInt) throws(SyscallError) -> Bool {
        switch try syscall(.flock, fd: fd, wouldBlockAllowed: true, { _ in cas_flock(fd, LOCK_EX | LOCK_NB) }) {
        case .processed: return true
        case .wouldBlock: return false
        }
    }

    /// Sets or clears `O_NONBLOCK`. The corresponding C function is `fcntl`.
    public static func setNonBlocking(_ fd: CInt, _ on: Bool = true) throws(SyscallError) {
        let flags = try syscallValue(.fcntl, fd: fd) { Glibc.fcntl(fd, F_GETFL) }
        let new = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        if new != flags { _ = try syscallValue(.fcntl, fd: fd) { Glibc.fcntl(fd, F_SETFL, new) } }
    }

    /// Removes a file name. The corresponding C function is `unlink`.
    public static func unlink(_ path: String) throws(SyscallError) {
        _ = try syscallValue(.unlink) { Glibc.unlink(path) }
    }
}

/// Two descriptors made together (a pipe's read and write ends, a socket pair). Take them apart
/// with `let r = pair.first` (the struct has no deinit, so its fields can be moved out).
///
/// Any thread, one owner at a time.
@frozen
public struct DescriptorPair: ~Copyable, Sendable {
    /// The pipe's read end, or the first socket.
    public var first: OwnedFD
    /// The pipe's write end, or the second socket.
    public var second: OwnedFD

    public init(_ first: consuming OwnedFD, _ second: consuming OwnedFD) {
        self.first = first
        self.second = second
    }
}
