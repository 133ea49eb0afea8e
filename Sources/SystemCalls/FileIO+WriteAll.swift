import Glibc

extension FileIO {
    /// Writes all of `bytes`, waiting (blocking the calling thread, `poll`) while the descriptor
    /// would block: for a command-line tool's standard output and error, which may be a
    /// non-blocking pipe shared with another process. Any thread.
    public static func writeAll(_ fd: CInt, _ bytes: [UInt8]) throws(SyscallError) {
        var offset = 0
        while offset < bytes.count {
            let result: Result<IOResult<Int>, SyscallError> = bytes.withUnsafeBytes { buffer in
                do throws(SyscallError) {
                    return .success(try write(fd, from: UnsafeRawBufferPointer(rebasing: buffer[offset...])))
                } catch {
                    return .failure(error)
                }
            }
            switch try result.get() {
            case .processed(let count): offset += count
            case .wouldBlock:
                var wanted = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = Glibc.poll(&wanted, 1, 1000)  // a failure or timeout just means: try again
            }
        }
    }
}
