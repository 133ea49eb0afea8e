import AccessoryTestSupport
import Hotplug
import IOLoop
import SystemCalls

/// A udev monitor on a loop on the test's thread, a sender of fake udevd messages, and the events
/// received. Only inside a private network namespace (``HotplugNamespace``).
///
/// Test thread only (the loop belongs to it).
final class MonitorHarness {
    let loop: IOLoop
    var sender: UeventSender
    var events: [HotplugEvent] = []
    /// Called after each event is recorded (to stop the monitor from inside the callback, say).
    var afterEvent: ((HotplugEvent) -> Void)?
    private(set) var monitor: UdevMonitor!

    init(subsystems: [String] = ["tty"]) throws {
        loop = try IOLoop.forCurrentThread(name: "udev-test")
        sender = try UeventSender()
        monitor = try UdevMonitor(loop: loop, subsystems: subsystems) { [unowned self] event in
            self.events.append(event)
            self.afterEvent?(event)
        }
    }

    /// Runs the loop until `count` events arrived or `seconds` passed; true if they arrived.
    @discardableResult
    func run(untilEvents count: Int, seconds: Double = 5) -> Bool {
        let deadline = loop.now + .milliseconds(Int(seconds * 1000))
        loop.run(while: { self.events.count < count && self.loop.now < deadline })
        return events.count >= count
    }

    /// Runs the loop for `milliseconds` (to show that nothing more arrives).
    func settle(milliseconds: Int = 200) {
        loop.run(until: loop.now + .milliseconds(milliseconds))
    }

    func close() {
        monitor.stop()
        loop.shutdown()
    }
}

extension HotplugEvent {
    var action: String {
        switch self {
        case .added: "add"
        case .removed: "remove"
        case .changed: "change"
        }
    }
}
