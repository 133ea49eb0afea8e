import CAccessoryShims

extension Socket {
    /// Sends up to `buffer.count` bytes on a connected stream socket; a short count is normal. A
    /// peer that has gone gives `EPIPE` (thrown), never `SIGPIPE`. The corresponding C function is
    /// `send` with `MSG_NOSIGNAL`. Any thread.
    @inline(never)
    public static func send(_ fd: CInt, from buffer: UnsafeRawBufferPointer) throws(SyscallError) -> IOResult<Int> {
        try syscall(.send, fd: fd, wouldBlockAllowed: true) { cap in
            cas_send_nosignal(fd, buffer.baseAddress, Swift.min(buffer.count, cap))
        }
    }
}
