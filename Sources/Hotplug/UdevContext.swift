import CUdev

/// One libudev context (`struct udev`), released when the last user lets go. libudev objects are
/// not thread-safe: a context and everything made from it stay on one thread.
///
/// Threading: the thread that made it (the device loop for a monitor).
final class UdevContext {
    let raw: OpaquePointer

    init() throws(HotplugError) {
        guard let raw = udev_new() else { throw .udevUnavailable(step: "udev_new", errno: nil) }
        self.raw = raw
    }

    deinit { udev_unref(raw) }
}

extension DeviceIdentity {
    /// Reads every property of a libudev device and whether udevd has processed it.
    /// Threading: the thread owning the device's context.
    init(udevDevice device: OpaquePointer) {
        var properties: [String: String] = [:]
        var entry = udev_device_get_properties_list_entry(device)
        while let current = entry {
            if let name = udev_list_entry_get_name(current) {
                properties[String(cString: name)] = udev_list_entry_get_value(current).map { String(cString: $0) } ?? ""
            }
            entry = udev_list_entry_get_next(current)
        }
        self.init(properties: properties, isInitialized: udev_device_get_is_initialized(device) > 0)
    }
}
