import SystemCalls

/// Works out the `DeviceAllow=` line a systemd unit needs to open a character device: systemd
/// names a driver's devices `char-<name>`, where `<name>` is the driver's name in the
/// "Character devices:" part of `/proc/devices`, found by the device's major number.
///
/// One major number may carry several names (major 4 is both `tty`, the virtual consoles, and
/// `ttyS`, the on-board 8250 UARTs): the name that begins the device's own file name is chosen,
/// so `/dev/ttyS1` gives `char-ttyS`. When the major number cannot be read (a path that is gone,
/// no `/proc`), the file name without its trailing digits stands in (`/dev/ttyAMA0` gives
/// `char-ttyAMA`). Any thread (pure functions, and one `stat` and one `/proc` read).
public enum DeviceAllowHint {
    /// The `DeviceAllow=` line for the device at `path`, e.g. `DeviceAllow=char-ttyS rw`, or nil
    /// when no driver name can be worked out.
    public static func line(forDeviceAt path: String) -> String? {
        var names: [String] = []
        if let status = try? FileIO.status(followingLinks: path), status.kind == .characterDevice {
            names = driverNames(major: status.deviceMajor, procDevices: FileIO.readText("/proc/devices"))
        }
        let fileName = fileName(ofDeviceAt: path)
        guard let name = choose(among: names, for: fileName) else { return nil }
        return "DeviceAllow=char-\(name) rw"
    }

    /// The names `/proc/devices` gives the character-device major `major` (in its order).
    public static func driverNames(major: UInt32, procDevices: String) -> [String] {
        var names: [String] = []
        var inCharacterDevices = false
        for line in procDevices.split(separator: "\n") {
            let trimmed = line.trimmingPrefix(while: { $0 == " " })
            if trimmed.hasSuffix(":") {
                inCharacterDevices = trimmed == "Character devices:"
                continue
            }
            guard inCharacterDevices else { continue }
            let fields = trimmed.split(separator: " ", maxSplits: 1)
            guard fields.count == 2, UInt32(fields[0]) == major else { continue }
            names.append(String(fields[1]))
        }
        return names
    }

    /// Of the driver's `names`, the longest that begins `fileName`; with none, the file name
    /// without its trailing digits (nil when that leaves nothing).
    public static func choose(among names: [String], for fileName: String) -> String? {
        if let best = names.filter({ fileName.hasPrefix($0) }).max(by: { $0.count < $1.count }) {
            return best
        }
        if names.count == 1, let only = names.first, !only.hasPrefix("/") { return only }
        let stem = String(fileName.reversed().drop(while: \.isNumber).reversed())
        return stem.isEmpty ? nil : stem
    }

    private static func fileName(ofDeviceAt path: String) -> String {
        // A by-id link names the adapter, not the driver: the link's target names the node.
        let resolved = ((try? FileIO.resolvedPath(path)) ?? nil) ?? path
        return resolved.split(separator: "/").last.map(String.init) ?? resolved
    }
}
