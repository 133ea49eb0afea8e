import IOLoop

/// Sends `WATCHDOG=1` from the device loop, so that a stuck device loop stops the pings and
/// systemd restarts the daemon.
///
/// Two parts, because each alone is wrong: the loop's before-waiting observer proves the loop
/// gets round (timers fired, perform blocks run, about to wait again), but an idle loop sleeping
/// in epoll never gets there; a repeating timer at the ping interval wakes the idle loop, and
/// only marks a ping as due. The observer sends the due ping. A loop stuck in a callback runs
/// neither, so no ping is sent; a busy loop still reaches the observer every iteration, and the
/// timer (fired at the top of each iteration) keeps the rate at one ping per interval.
///
/// Device loop only. Lives as long as the loop (the timer and observer hold it).
final class WatchdogPinger {
    let loop: IOLoop
    let interval: Duration
    let ping: () -> Void
    private var due = true

    init(loop: IOLoop, interval: Duration, ping: @escaping () -> Void) {
        self.loop = loop
        self.interval = interval
        self.ping = ping
    }

    /// Installs the timer and the observer; the first ping goes out before the loop next waits.
    func start() {
        _ = loop.scheduleTimer(at: loop.now + interval, repeating: interval, modes: [.common]) { [self] in due = true }
        loop.addObserver(activities: .beforeWaiting, modes: [.common]) { [self] _ in
            guard due else { return }
            due = false
            ping()
        }
    }
}
