import Glibc

/// The write end the handlers write to; set before any handler is installed, never changed after.
nonisolated(unsafe) private var signalPipeWriteEnd: CInt = -1

/// Signals as bytes on a pipe (the self-pipe trick), for a loop to watch.
///
/// Unlike ``SignalFD``, which needs the signals blocked in every thread (so before any thread
/// exists), this works in a process that already runs other threads: a handler, whichever thread
/// it runs on, writes the signal number to a pipe. Process-wide; install once. Any thread.
public enum SignalPipe {
    /// Installs handlers for `signals` that write each delivery's number (one byte) to a new pipe,
    /// and returns the pipe's read end. The write end stays open for the life of the process.
    /// Call at most once per process. The corresponding C functions are `pipe2` and `signal`.
    public static func install(_ signals: [CInt]) throws(SyscallError) -> OwnedFD {
        precondition(signalPipeWriteEnd == -1, "SignalPipe.install may be called once per process")
        let pipe = try FileIO.pipe()
        let readEnd = pipe.first
        signalPipeWriteEnd = pipe.second.release()
        let handler: @convention(c) (CInt) -> Void = { signal in
            let saved = errno
            var byte = UInt8(truncatingIfNeeded: signal)
            _ = Glibc.write(signalPipeWriteEnd, &byte, 1)  // async-signal-safe; a full pipe drops it
            errno = saved
        }
        for signal in signals { _ = Glibc.signal(signal, handler) }
        return readEnd
    }

    /// Reads one delivered signal number, or nil when none is pending.
    public static func next(_ fd: CInt) throws(SyscallError) -> CInt? {
        guard let bytes = try FileIO.read(fd, max: 1), let byte = bytes.first else { return nil }
        return CInt(byte)
    }
}
