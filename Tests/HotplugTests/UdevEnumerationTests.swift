import AccessoryTestSupport
import Testing

@testable import Hotplug

@Suite("udev enumeration and event mapping")
struct UdevEnumerationTests {
    @Test("enumeration reads the tty devices in sysfs, sorted; the initialized ones are a subset")
    func enumeration() throws {
        let all = try UdevEnumeration.devices(subsystems: ["tty"], includingUninitialized: true)
        #expect(!all.isEmpty)
        #expect(all.allSatisfy { $0.subsystem == "tty" && $0.devPath != nil })
        #expect(all.map { $0.devPath ?? "" } == all.map { $0.devPath ?? "" }.sorted())
        let tty = all.first { $0.devPath == "/devices/virtual/tty/tty" }
        #expect(tty?.devName == "/dev/tty", "every Linux has /dev/tty in sysfs")
        #expect(tty?.properties["MAJOR"] == "5" && tty?.properties["MINOR"] == "0")
        #expect(!all.contains { $0.devName?.hasPrefix("/dev/pts/") == true }, "pty slaves are not in sysfs")
        let initialized = try UdevEnumeration.devices(subsystems: ["tty"])
        #expect(initialized.allSatisfy { $0.isInitialized })
        #expect(Set(initialized.map(\.devPath)).isSubset(of: Set(all.map(\.devPath))))
        #expect(all.filter { $0.isInitialized }.map(\.devPath) == initialized.map(\.devPath))
    }

    @Test("an unknown subsystem enumerates nothing")
    func unknownSubsystem() throws {
        #expect(try UdevEnumeration.devices(subsystems: ["no-such-subsystem"], includingUninitialized: true).isEmpty)
    }

    @Test("udev actions map to events; an uninitialized add or change is skipped, a remove never")
    func mapping() {
        let ready = DeviceIdentity(properties: ["DEVPATH": "/devices/x"])
        let raw = DeviceIdentity(properties: ["DEVPATH": "/devices/x"], isInitialized: false)
        #expect(UdevMonitor.event(action: "add", device: ready) == .added(ready))
        #expect(UdevMonitor.event(action: "change", device: ready) == .changed(ready))
        #expect(UdevMonitor.event(action: "remove", device: ready) == .removed(ready))
        #expect(UdevMonitor.event(action: "add", device: raw) == nil)
        #expect(UdevMonitor.event(action: "change", device: raw) == nil)
        #expect(UdevMonitor.event(action: "remove", device: raw) == .removed(raw))
        for other in ["bind", "unbind", "move", "online", "offline", nil] as [String?] {
            #expect(UdevMonitor.event(action: other, device: ready) == nil)
        }
    }

    @Test("error messages say what failed")
    func messages() {
        #expect(
            HotplugError.udevUnavailable(step: "udev_monitor_enable_receiving", errno: .permissionDenied).description
                == "udev unavailable: udev_monitor_enable_receiving failed: Permission denied (errno 13)"
        )
        #expect(
            HotplugError.udevUnavailable(step: "udev_new", errno: nil).description
                == "udev unavailable: udev_new failed"
        )
    }
}
