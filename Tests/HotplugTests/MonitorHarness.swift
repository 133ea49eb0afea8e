import AccessoryTestSupport
import Glibc
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

    /// The built `uevent-send` beside the test bundle, or nil when it is not built.
    static let ueventSend: String? = {
        guard let me = try? FileIO.readLink("/proc/self/exe") else { return nil }
        let candidate = String(me[..<(me.lastIndex(of: "/") ?? me.startIndex)]) + "/uevent-send"
        return (try? FileIO.status(ofPath: candidate)) == nil ? nil : candidate
    }()

    /// Runs `uevent-send` with `arguments` and returns how it ended (nil: still running after
    /// 10 s, then killed).
    static func runUeventSend(_ arguments: [String]) throws -> ChildProcess.Termination? {
        guard let ueventSend else { return nil }
        let pid = try ChildProcess.spawn(ueventSend, arguments: arguments)
        var ended: ChildProcess.Termination?
        Wait.until(seconds: 10) {
            ended = try? ChildProcess.wait(pid, block: false)
            return ended != nil
        }
        if ended == nil {
            try? ChildProcess.signal(pid, SIGKILL)
            _ = try? ChildProcess.wait(pid, block: true)
        }
        return ended
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
