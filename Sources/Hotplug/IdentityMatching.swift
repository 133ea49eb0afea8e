import SystemCalls

/// Decides whether a configured accessory is a given device. Pure apart from resolving a
/// configured path's links.
///
/// Any thread.
package enum IdentityMatching {
    /// Where udev puts the links that `by_id:` names.
    package static let byIDFolder = "/dev/serial/by-id/"

    /// True when the device carries the accessory's name (`ACCESSORYD_NAME`, set by our udev rule),
    /// or satisfies every field `match` configures: `vendor_id`/`product_id` against
    /// `ID_VENDOR_ID`/`ID_MODEL_ID` (hex, any case), `serial` against `ID_SERIAL_SHORT` (exactly),
    /// `by_id` against a `DEVLINKS` entry `/dev/serial/by-id/<by_id>`. A match that configures no
    /// field matches nothing. Any thread.
    package static func matches(_ match: DeviceMatch, accessoryName: String, device: DeviceIdentity) -> Bool {
        if let tagged = device.accessoryName, tagged == accessoryName { return true }
        guard match != DeviceMatch() else { return false }
        if let vendor = match.vendorID, !sameHex(vendor, device.vendorID) { return false }
        if let product = match.productID, !sameHex(product, device.productID) { return false }
        if let serial = match.serial, serial != device.serial { return false }
        if let byID = match.byID, !device.devLinks.contains(byIDFolder + byID) { return false }
        return true
    }

    /// For `path:` accessories: true when `DEVNAME` or a `DEVLINKS` entry is `path` as written, or
    /// is where `path` leads once its symbolic links are resolved (when it exists now). Any thread.
    package static func matches(path: String, device: DeviceIdentity) -> Bool {
        if names(of: device).contains(path) { return true }
        guard let resolved = try? FileIO.resolvedPath(path), resolved != path else { return false }
        return names(of: device).contains(resolved)
    }

    private static func names(of device: DeviceIdentity) -> [String] {
        (device.devName.map { [$0] } ?? []) + device.devLinks
    }

    /// Hex identifiers compare without regard to case or a `0x` prefix.
    private static func sameHex(_ configured: String, _ reported: String?) -> Bool {
        guard let reported else { return false }
        return normalizedHex(configured) == normalizedHex(reported)
    }

    private static func normalizedHex(_ s: String) -> Substring {
        let lower = s.lowercased()
        return lower.hasPrefix("0x") ? Substring(lower.dropFirst(2)) : Substring(lower)
    }
}
