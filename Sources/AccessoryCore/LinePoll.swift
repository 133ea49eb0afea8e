import IOLoop
import Transports

/// Polls an accessory's modem lines while some client subscribes to `device.lines`: one read
/// every `interval`, and a report only when the lines differ from the previous reading (the first
/// reading is the baseline, never a change). A reading that finds no lines (the accessory is
/// closed or has none) forgets the baseline, so a reopen starts afresh instead of reporting the
/// difference across the gap.
///
/// Polled, not waited for: `TIOCMIWAIT` blocks its thread until a line changes, which would need
/// a thread per accessory, and many USB adapters never wake it. A `TIOCMGET` every `interval`
/// costs one ioctl and runs only while polling; a change shorter than the interval (an RI ring
/// pulse) may be missed.
///
/// Its timer goes through a ``LoopScheduler``, so its tests run on virtual time.
///
/// Device loop only.
final class LinePoll {
    let scheduler: any LoopScheduler
    let interval: Duration
    private var timer: LoopTimer?
    /// The lines at the last reading that found some.
    private(set) var lastLines: ModemLines?

    init(scheduler: any LoopScheduler, interval: Duration) {
        self.scheduler = scheduler
        self.interval = interval
    }

    /// Whether a poll is running.
    var isPolling: Bool { timer != nil }

    /// Starts polling: `read` every `interval` from now, `changed` told each change. Does nothing
    /// while already polling (the running poll keeps its closures and its baseline).
    func start(read: @escaping () -> ModemLines?, changed: @escaping (ModemLines) -> Void) {
        scheduler.assertInLoop()
        guard timer == nil else { return }
        lastLines = nil
        timer = scheduler.scheduleTimer(after: interval, repeating: interval) { [weak self] in
            guard let self else { return }
            guard let lines = read() else {
                lastLines = nil
                return
            }
            defer { lastLines = lines }
            if let last = lastLines, last != lines { changed(lines) }
        }
    }

    /// Stops polling, if it runs; the next ``start(read:changed:)`` begins with a new baseline.
    func stop() {
        scheduler.assertInLoop()
        timer?.cancel()
        timer = nil
        lastLines = nil
    }
}
