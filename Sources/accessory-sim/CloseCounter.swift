import IOLoop
import SystemCalls

/// Counts the closes of a pty's slave by other processes and writes the count to a file on each
/// change (`accessory-sim --count-closes FILE`). A pty has no DTR line, and its closing is the
/// stand-in for a hang-up: on a real port the last close of the tty drops DTR (`HUPCL`), which
/// resets many boards. inotify reports a close only when the last descriptor of an open file goes
/// (one passed to systemd's store and back is the same open file), so a restart that keeps the
/// device open counts nothing, and one that closes it counts one.
///
/// Threading: the simulator's loop thread.
final class CloseCounter {
    private let file: String
    private var count = 0

    /// Watches `slavePath` on `loop`; writes 0 to `file` now.
    init(slavePath: String, file: String, on loop: IOLoop) throws {
        self.file = file
        try write()
        let inotify = try Inotify.create()
        let fd = inotify.rawValue
        _ = try Inotify.addWatch(fd, path: slavePath, mask: [.closedAfterWriting, .closedWithoutWriting])
        _ = try loop.addSource(owning: inotify, interest: .readable) { [self] _ in
            while let events = try? Inotify.readEvents(fd), !events.isEmpty {
                count +=
                    events.filter { !$0.mask.isDisjoint(with: [.closedAfterWriting, .closedWithoutWriting]) }.count
            }
            try? write()
        }
    }

    private func write() throws {
        try FileIO.replace(file, with: Array("\(count)\n".utf8), mode: 0o644)
    }
}
