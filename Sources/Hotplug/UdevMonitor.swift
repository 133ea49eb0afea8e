import CUdev
import IOLoop
import SystemCalls

/// A libudev monitor of the "udev" source (events after udevd's rules ran, on netlink group 2),
/// filtered to some subsystems in the kernel, as a source on an IOLoop.
///
/// Device loop only: make it, start it, stop it and let it go on the loop's thread; `onEvent` runs
/// there.
package final class UdevMonitor {
    /// Most events handled per wake-up, so that a storm (`udevadm trigger`) cannot starve the
    /// loop's other sources; the socket is level-triggered, so the rest come next iteration.
    static let eventsPerWakeup = 64
    /// Asked for so that a burst of events is not dropped by the kernel (ENOBUFS) before the loop
    /// reads them; the kernel may grant less without privileges.
    static let receiveBufferBytes: CInt = 1 << 20

    private let loop: IOLoop
    private let subsystems: [String]
    private let onEvent: (HotplugEvent) -> Void
    private let context: UdevContext
    private var monitor: OpaquePointer?
    private var source: FDSource?

    /// Creates the monitor and its kernel subsystem filter; nothing is received until ``start()``.
    /// Device loop only.
    package init(loop: IOLoop, subsystems: [String] = ["tty"], onEvent: @escaping (HotplugEvent) -> Void)
        throws(HotplugError)
    {
        loop.preconditionInLoop()
        self.loop = loop
        self.subsystems = subsystems
        self.onEvent = onEvent
        context = try UdevContext()
        guard let monitor = udev_monitor_new_from_netlink(context.raw, "udev") else {
            throw .udevUnavailable(step: "udev_monitor_new_from_netlink", errno: nil)
        }
        self.monitor = monitor
        for subsystem in subsystems {
            let rc = udev_monitor_filter_add_match_subsystem_devtype(monitor, subsystem, nil)
            if rc < 0 {
                throw .udevUnavailable(
                    step: "udev_monitor_filter_add_match_subsystem_devtype",
                    errno: Errno(rawValue: -rc)
                )
            }
        }
        _ = udev_monitor_set_receive_buffer_size(monitor, Self.receiveBufferBytes)
    }

    /// A monitor dropped without ``stop()`` still leaves the loop first (its source is cancelled
    /// before libudev closes the descriptor), so the loop's thread must be the one letting it go.
    deinit {
        source?.cancel()
        if let monitor { udev_monitor_unref(monitor) }
    }

    /// Starts receiving, then enumerates: the monitor socket is bound and registered on the loop
    /// first, so a device plugged in during the enumeration is either in the returned list or
    /// reported by an event afterwards (possibly both: pair them by ``DeviceIdentity/devPath``).
    /// Returns the initialized devices of the subsystems present now; with `enumerating: false`
    /// none (the enumeration reads every device of the subsystems in /sys and /run/udev: about
    /// 2,500 `openat` for `tty` on a plain machine, two thirds of the daemon's start-up CPU, which
    /// only accessories found by udev properties need). Call once. Device loop only.
    package func start(enumerating: Bool = true) throws(HotplugError) -> [DeviceIdentity] {
        loop.preconditionInLoop()
        guard let monitor else { preconditionFailure("UdevMonitor.start() after stop()") }
        precondition(source == nil, "UdevMonitor.start() called twice")
        let rc = udev_monitor_enable_receiving(monitor)
        if rc < 0 { throw .udevUnavailable(step: "udev_monitor_enable_receiving", errno: Errno(rawValue: -rc)) }
        do {
            // libudev owns the descriptor; the source only watches it and is cancelled before it closes.
            source = try loop.addSource(fd: udev_monitor_get_fd(monitor), interest: .readable) { [unowned self] _ in
                self.receiveAvailable()
            }
        } catch {
            throw .cannotRegister(error)
        }
        guard enumerating else { return [] }
        do {
            return try UdevEnumeration.devices(context: context, subsystems: subsystems, includingUninitialized: false)
        } catch {
            stop()
            throw error
        }
    }

    /// Stops receiving and releases the monitor. No event is delivered afterwards, even from inside
    /// `onEvent`. Idempotent. Device loop only.
    package func stop() {
        loop.preconditionInLoop()
        source?.cancel()
        source = nil
        if let monitor { udev_monitor_unref(monitor) }
        monitor = nil
    }

    private func receiveAvailable() {
        for _ in 0..<Self.eventsPerWakeup {
            // `stop()` from inside `onEvent` ends the batch.
            guard let monitor, source != nil else { return }
            // NULL: nothing left, or a message libudev rejected (wrong sender, bad header).
            guard let device = udev_monitor_receive_device(monitor) else { return }
            let action = udev_device_get_action(device).map { String(cString: $0) }
            let identity = DeviceIdentity(udevDevice: device)
            udev_device_unref(device)
            if let event = Self.event(action: action, device: identity) { onEvent(event) }
        }
    }

    /// The event for a udev action, or nil for actions accessoryd does not act on (`bind`,
    /// `unbind`, `move`, `online`, `offline`) and for an uninitialized device's `add`/`change`
    /// (its identity is incomplete). A `remove` is always reported: missing one would leave a
    /// vanished device open. Any thread.
    static func event(action: String?, device: DeviceIdentity) -> HotplugEvent? {
        switch action {
        case "add": device.isInitialized ? .added(device) : nil
        case "change": device.isInitialized ? .changed(device) : nil
        case "remove": .removed(device)
        default: nil
        }
    }
}
