import CUdev
import SystemCalls

/// The devices of some subsystems present now, read from sysfs and udev's database.
///
/// Any thread: each call uses its own libudev context, or the caller's on the caller's thread.
package enum UdevEnumeration {
    /// The devices of `subsystems`, sorted by `DEVPATH`. Devices udevd has not processed yet are
    /// left out unless `includingUninitialized` (their rules' properties, such as `ID_VENDOR_ID`
    /// and `ACCESSORYD_NAME`, are missing; udevd announces them once done). Without a running
    /// udevd every device is uninitialized. pty slaves (`/dev/pts/N`) are not in sysfs and never
    /// appear. Any thread.
    package static func devices(subsystems: [String] = ["tty"], includingUninitialized: Bool = false)
        throws(HotplugError) -> [DeviceIdentity]
    {
        try devices(context: UdevContext(), subsystems: subsystems, includingUninitialized: includingUninitialized)
    }

    /// As above with the caller's context. The context's thread only.
    static func devices(context: UdevContext, subsystems: [String], includingUninitialized: Bool)
        throws(HotplugError) -> [DeviceIdentity]
    {
        guard let enumerate = udev_enumerate_new(context.raw) else {
            throw .udevUnavailable(step: "udev_enumerate_new", errno: nil)
        }
        defer { udev_enumerate_unref(enumerate) }
        for subsystem in subsystems {
            let rc = udev_enumerate_add_match_subsystem(enumerate, subsystem)
            if rc < 0 {
                throw .udevUnavailable(step: "udev_enumerate_add_match_subsystem", errno: Errno(rawValue: -rc))
            }
        }
        let rc = udev_enumerate_scan_devices(enumerate)
        if rc < 0 { throw .udevUnavailable(step: "udev_enumerate_scan_devices", errno: Errno(rawValue: -rc)) }
        var found: [DeviceIdentity] = []
        var entry = udev_enumerate_get_list_entry(enumerate)
        while let current = entry {
            entry = udev_list_entry_get_next(current)
            // A device that vanished since the scan has no syspath to read any more: skip it.
            guard let syspath = udev_list_entry_get_name(current),
                let device = udev_device_new_from_syspath(context.raw, syspath)
            else { continue }
            let identity = DeviceIdentity(udevDevice: device)
            udev_device_unref(device)
            if identity.isInitialized || includingUninitialized { found.append(identity) }
        }
        return found.sorted { ($0.devPath ?? "") < ($1.devPath ?? "") }
    }
}
