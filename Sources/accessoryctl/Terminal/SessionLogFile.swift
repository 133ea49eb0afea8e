import AttachTerminal
import SystemCalls

/// The file `--log` (or the `l` key) writes a session to: appended to, created `0600`, never
/// through a symbolic link; each line written whole with one `write`, so it is on disk (in the
/// page cache) as soon as it is complete and nothing is lost if the program is killed.
///
/// Threading: the session's thread.
final class SessionLogFile {
    let path: String
    /// The open file; -1 once closed.
    private var fd: CInt
    private var lines = SessionLogLines()

    init(path: String) throws(SyscallError) {
        self.path = path
        fd = try FileIO.open(
            path,
            flags: FileIO.OpenFlag.writeOnly | FileIO.OpenFlag.create | FileIO.OpenFlag.append
                | FileIO.OpenFlag.noFollow,
            mode: 0o600
        ).release()
    }

    func record(_ bytes: [UInt8], _ direction: SessionLogLines.Direction, at time: WallTime) {
        write(lines.add(bytes, direction, at: time))
    }

    /// Writes the unfinished lines and closes the file.
    func close() {
        write(lines.flush())
        guard fd >= 0 else { return }
        OwnedFD(adopting: fd).close()
        fd = -1
    }

    private func write(_ completed: [String]) {
        for line in completed {
            guard fd >= 0 else { return }
            try? FileIO.writeAll(fd, Array((line + "\n").utf8))
        }
    }

    deinit { close() }
}
