import IOLoop
import SystemCalls

/// Tells the daemon at once that a program opened a view: one inotify instance with an `IN_OPEN`
/// watch on each view's slave device (the path the link points to; the kernel reports an open
/// however the program reached the device). Without it, a program that opens a view and writes
/// at once waited for the next poll (``ViewSet/pollInterval``, up to 200 ms) before its first byte
/// was read: a short stream through an `exclusive` view ran at half of `attach`'s rate. The poll
/// stays, for what a watch cannot see (no inotify left, a watch refused); a spurious event costs
/// one look at the master's hang-up state (``PtyView/checkOpened()``).
///
/// Device loop only.
final class ViewOpenWatch {
    private var source: FDSource?
    /// The watch numbers' views. A view's pty closes with it, which also drops its watch.
    private var views: [CInt: PtyView] = [:]

    /// Without inotify (no instance left) nothing is watched, and the poll alone notices opens.
    init(loop: IOLoop) {
        guard let fd = try? Inotify.create() else { return }
        source = try? loop.addSource(owning: fd, interest: .readable) { [unowned self] _ in readEvents() }
    }

    /// Watches `view`'s slave for opens. Returns false if the kernel refused the watch.
    @discardableResult
    func watch(_ view: PtyView) -> Bool {
        guard let fd = source?.fd, let wd = try? Inotify.addWatch(fd, path: view.slavePath, mask: .opened) else {
            return false
        }
        views[wd] = view
        return true
    }

    /// Stops watching `view` (it is closed).
    func forget(_ view: PtyView) {
        for (wd, v) in views where v === view {
            views[wd] = nil
            if let fd = source?.fd { try? Inotify.removeWatch(fd, watch: wd) }
        }
    }

    func close() {
        source?.cancel()
        source = nil
        views = [:]
    }

    private func readEvents() {
        guard let fd = source?.fd else { return }
        // Bounded: a few reads of 16 events each; level-triggered epoll reports the rest.
        for _ in 0..<4 {
            guard let events = try? Inotify.readEvents(fd), !events.isEmpty else { return }
            for event in events {
                if event.mask.contains(.ignored) {
                    views[event.watch] = nil
                } else if event.mask.contains(.opened), let view = views[event.watch], !view.isClosed, !view.isOpen {
                    _ = view.checkOpened()
                }
            }
        }
    }
}
