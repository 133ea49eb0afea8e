import SystemCalls

/// Whole-line writes to the process's stdout and stderr, unbuffered (so a parent reading a pipe
/// sees each line at once), tolerant of a non-blocking or closed pipe.
///
/// Any thread (each line is written with as few `write` calls as the pipe allows; lines from
/// different threads could interleave only if one exceeded the pipe's atomic size).
enum StandardStreams {
    /// Writes `line` and a newline to stdout.
    static func out(_ line: String) { write(1, line) }

    /// Writes `accessory-sim: <line>` to stderr.
    static func err(_ line: String) { write(2, "accessory-sim: " + line) }

    private static func write(_ fd: CInt, _ line: String) {
        var bytes = Array((line + "\n").utf8)
        while !bytes.isEmpty {
            switch try? FileIO.write(fd, bytes) {
            case .processed(let n)?:
                bytes.removeFirst(n)
            case .wouldBlock?:
                guard waitWritable(fd) else { return }
            case nil:
                return  // EPIPE or similar: nobody is listening any more.
            }
        }
    }

    /// Waits up to a second for `fd` to become writable.
    private static func waitWritable(_ fd: CInt) -> Bool {
        guard let ep = try? Epoll.create() else { return false }  // closed when dropped
        guard (try? Epoll.control(ep.rawValue, .add, fd: fd, events: .writable, data: 0)) != nil else { return false }
        var bits: [UInt32] = [0]
        var data: [UInt64] = [0]
        let n = bits.withUnsafeMutableBufferPointer { b in
            data.withUnsafeMutableBufferPointer { d in
                (try? Epoll.wait(ep.rawValue, events: b, data: d, timeoutMilliseconds: 1000)) ?? 0
            }
        }
        return n > 0
    }
}
