import AccessoryTestSupport
import Glibc
import Hotplug
import SystemCalls
import Testing

/// The real libudev monitor on a real loop, fed by fake udevd messages on netlink group 2. Runs
/// only in a private network namespace (`make test` runs it under `unshare -rn`), so that nothing
/// reaches the host's listeners.
@Suite(
    "udev monitor over netlink",
    .serialized,
    .enabled(if: HotplugNamespace.isPrivateNetwork, Comment(rawValue: HotplugNamespace.skipReason ?? ""))
)
struct HotplugNetlinkTests {
    static let ftdi: [UeventMessage.Property] = [
        .init("ID_VENDOR_ID", "0403"), .init("ID_MODEL_ID", "6001"), .init("ID_SERIAL_SHORT", "FAKE01"),
        .init("DEVLINKS", "/dev/serial/by-id/usb-FTDI_FAKE01-if00-port0 /dev/serial/by-path/pci-0:2-port0"),
    ]

    @Test("add: the identity arrives whole, matches its configuration, and DEVNAME opens")
    func add() throws {
        let h = try MonitorHarness()
        defer { h.close() }
        _ = try h.monitor.start()
        let pty = try PseudoTerminal.open()
        let slavePath = pty.slavePath
        let master = pty.master
        try h.sender.send(
            action: "add",
            devPath: "/devices/virtual/tty/sim0",
            devName: slavePath,
            properties: Self.ftdi
        )
        #expect(h.run(untilEvents: 1))
        guard case .added(let d) = h.events.first else {
            Issue.record("expected an add, got \(h.events)")
            return
        }
        #expect(d.devName == slavePath)
        #expect(d.devPath == "/devices/virtual/tty/sim0")
        #expect(d.subsystem == "tty")
        #expect(d.vendorID == "0403" && d.productID == "6001" && d.serial == "FAKE01")
        // libudev keeps DEVLINKS as a set: the order it reports them in is its own.
        #expect(
            Set(d.devLinks) == ["/dev/serial/by-id/usb-FTDI_FAKE01-if00-port0", "/dev/serial/by-path/pci-0:2-port0"]
        )
        #expect(d.isInitialized, "libudev marks what udevd sends as initialized")
        #expect(d.properties["SEQNUM"] == "1")
        #expect(
            IdentityMatching.matches(DeviceMatch(vendorID: "0403", productID: "6001"), accessoryName: "m", device: d)
        )
        #expect(
            IdentityMatching.matches(DeviceMatch(byID: "usb-FTDI_FAKE01-if00-port0"), accessoryName: "m", device: d)
        )
        #expect(IdentityMatching.matches(path: slavePath, device: d))
        let slave = try FileIO.open(d.devName ?? "", flags: O_RDWR | O_NOCTTY | O_NONBLOCK)
        slave.close()
        master.close()
    }

    @Test("add, remove, and add again (replug): in order, paired by DEVPATH")
    func replug() throws {
        let h = try MonitorHarness()
        defer { h.close() }
        _ = try h.monitor.start()
        let first = try PseudoTerminal.open()
        let firstPath = first.slavePath
        let firstMaster = first.master
        let second = try PseudoTerminal.open()
        let secondPath = second.slavePath
        let secondMaster = second.master
        let devPath = "/devices/virtual/tty/replug"
        try h.sender.send(action: "add", devPath: devPath, devName: firstPath, properties: Self.ftdi)
        #expect(h.run(untilEvents: 1))
        try h.sender.send(action: "remove", devPath: devPath, devName: firstPath, properties: Self.ftdi)
        #expect(h.run(untilEvents: 2))
        firstMaster.close()
        try h.sender.send(action: "add", devPath: devPath, devName: secondPath, properties: Self.ftdi)
        #expect(h.run(untilEvents: 3))
        #expect(h.events.map(\.action) == ["add", "remove", "add"])
        #expect(h.events.allSatisfy { $0.device.devPath == devPath })
        #expect(h.events.map(\.device.devName) == [firstPath, firstPath, secondPath])
        #expect(h.events.map { $0.device.properties["SEQNUM"] } == ["1", "2", "3"])
        secondMaster.close()
    }

    @Test("change: new properties are reported")
    func change() throws {
        let h = try MonitorHarness()
        defer { h.close() }
        _ = try h.monitor.start()
        let devPath = "/devices/virtual/tty/ch0"
        try h.sender.send(action: "add", devPath: devPath, devName: "/dev/pts/0", properties: Self.ftdi)
        try h.sender.send(
            action: "change",
            devPath: devPath,
            devName: "/dev/pts/0",
            properties: Self.ftdi + [.init("ACCESSORYD_NAME", "meter")]
        )
        #expect(h.run(untilEvents: 2))
        guard h.events.count == 2, case .changed(let d) = h.events[1] else {
            Issue.record("expected add then change, got \(h.events)")
            return
        }
        #expect(d.accessoryName == "meter")
        #expect(IdentityMatching.matches(DeviceMatch(vendorID: "ffff"), accessoryName: "meter", device: d))
    }

    @Test("dropped: another subsystem, a tty event with another subsystem's hash, a bad magic, a bind")
    func filtered() throws {
        let h = try MonitorHarness()
        defer { h.close() }
        _ = try h.monitor.start()
        // Dropped by the kernel's filter (hash of "usb") and by libudev's own subsystem check.
        try h.sender.send(action: "add", devPath: "/devices/pci0/usb1/1-1", subsystem: "usb")
        // Only the header's hash is wrong: only the kernel's filter can drop this one.
        var wrongHash = UeventMessage(
            action: "add",
            devPath: "/devices/virtual/tty/h",
            devName: "/dev/pts/1",
            seqnum: 90
        )
        wrongHash.subsystemHashOverride = MurmurHash2.hash("usb")
        try h.sender.send(wrongHash)
        // The kernel's filter passes a wrong magic on; libudev refuses it.
        var wrongMagic = UeventMessage(
            action: "add",
            devPath: "/devices/virtual/tty/m",
            devName: "/dev/pts/2",
            seqnum: 91
        )
        wrongMagic.magicOverride = 0xfeed_cafd
        try h.sender.send(wrongMagic)
        // Delivered by libudev, ignored by the monitor: not an action accessoryd acts on.
        try h.sender.send(action: "bind", devPath: "/devices/virtual/tty/b", devName: "/dev/pts/3")
        try h.sender.send(action: "add", devPath: "/devices/virtual/tty/good", devName: "/dev/pts/4")
        #expect(h.run(untilEvents: 1))
        h.settle()
        #expect(h.events.map(\.device.devPath) == ["/devices/virtual/tty/good"])
    }

    @Test("a monitor of another subsystem does not see tty events, and sees its own")
    func otherSubsystem() throws {
        let h = try MonitorHarness(subsystems: ["usb"])
        defer { h.close() }
        _ = try h.monitor.start()
        try h.sender.send(action: "add", devPath: "/devices/virtual/tty/t", devName: "/dev/pts/5")
        try h.sender.send(action: "add", devPath: "/devices/pci0/usb1/1-1", subsystem: "usb")
        #expect(h.run(untilEvents: 1))
        h.settle()
        #expect(h.events.map(\.device.subsystem) == ["usb"])
    }

    @Test("an event sent right after start() is delivered; the devices listed are initialized ttys")
    func eventRightAfterStart() throws {
        let h = try MonitorHarness()
        defer { h.close() }
        let present = try h.monitor.start()
        try h.sender.send(action: "add", devPath: "/devices/virtual/tty/early", devName: "/dev/pts/6")
        #expect(h.run(untilEvents: 1))
        #expect(h.events.first?.device.devPath == "/devices/virtual/tty/early")
        // Without udevd (as here) nothing is initialized and the list is empty; with it, ttys.
        #expect(present.allSatisfy { $0.isInitialized && $0.subsystem == "tty" && $0.devPath != nil })
        #expect(!present.contains { $0.devName?.hasPrefix("/dev/pts/") == true }, "pty slaves are not in sysfs")
        let again = try UdevEnumeration.devices()
        #expect(present.map(\.devPath) == again.map(\.devPath))
    }

    @Test("nothing is delivered after stop(), even when called from inside the callback")
    func stopInsideCallback() throws {
        let h = try MonitorHarness()
        defer { h.close() }
        _ = try h.monitor.start()
        h.afterEvent = { [unowned h] _ in h.monitor.stop() }
        try h.sender.send(action: "add", devPath: "/devices/virtual/tty/s1", devName: "/dev/pts/7")
        try h.sender.send(action: "add", devPath: "/devices/virtual/tty/s2", devName: "/dev/pts/8")
        #expect(h.run(untilEvents: 1))
        h.settle()
        #expect(h.events.map(\.device.devPath) == ["/devices/virtual/tty/s1"])
    }

    @Test("a started monitor dropped without stop leaves the loop; a new one on the same loop works")
    func droppedWithoutStop() throws {
        let h = try MonitorHarness()
        defer { h.close() }
        var dropped: UdevMonitor? = try UdevMonitor(loop: h.loop) { _ in Issue.record("the dropped monitor reported") }
        _ = try dropped?.start()
        dropped = nil
        _ = try h.monitor.start()
        try h.sender.send(action: "add", devPath: "/devices/virtual/tty/d1", devName: "/dev/pts/12")
        #expect(h.run(untilEvents: 1))
        h.settle()
        #expect(h.events.count == 1)
    }

    @Test("a burst larger than one wake-up's batch arrives complete and in order")
    func burst() throws {
        let h = try MonitorHarness()
        defer { h.close() }
        _ = try h.monitor.start()
        for i in 0..<200 {
            try h.sender.send(action: i % 2 == 0 ? "add" : "remove", devPath: "/devices/virtual/tty/b\(i / 2)")
        }
        #expect(h.run(untilEvents: 200, seconds: 10))
        #expect(h.events.map { $0.device.properties["SEQNUM"] } == (1...200).map { String($0) })
    }

    @Test("the uevent-send executable's event reaches the monitor")
    func executable() throws {
        let h = try MonitorHarness()
        defer { h.close() }
        _ = try h.monitor.start()
        let ended = try MonitorHarness.runUeventSend([
            "--action", "add", "--devpath", "/devices/virtual/tty/cli0", "--devname", "/dev/pts/11",
            "--seqnum", "77", "--property", "ID_VENDOR_ID=10C4", "--property", "ACCESSORYD_NAME=gps",
        ])
        #expect(ended == .exited(0), "uevent-send at \(MonitorHarness.ueventSend ?? "(not built)")")
        #expect(h.run(untilEvents: 1))
        guard case .added(let d) = h.events.first else {
            Issue.record("expected an add, got \(h.events)")
            return
        }
        #expect(d.devPath == "/devices/virtual/tty/cli0" && d.devName == "/dev/pts/11")
        #expect(d.vendorID == "10c4" && d.accessoryName == "gps" && d.properties["SEQNUM"] == "77")
        #expect(
            try MonitorHarness.runUeventSend(["--action", "add", "--devpath", "/x", "--seqnum", "0"]) == .exited(64)
        )
    }
}
