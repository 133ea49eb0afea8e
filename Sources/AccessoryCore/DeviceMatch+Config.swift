import AccessoryConfig
import Hotplug

/// Where the configuration meets hot-plug: the `match:` of an accessory (AccessoryConfig's
/// ``UdevMatch``) becomes Hotplug's ``DeviceMatch`` here and nowhere else, so Hotplug needs
/// nothing from the configuration module.
extension DeviceMatch {
    /// The same four fields. A value. Any thread.
    init(_ match: UdevMatch) {
        self.init(vendorID: match.vendorID, productID: match.productID, serial: match.serial, byID: match.byID)
    }
}

extension IdentityMatching {
    /// Whether the device is the accessory whose configuration says `match` (see
    /// `IdentityMatching.matches(_: DeviceMatch, accessoryName:device:)`). Any thread.
    static func matches(_ match: UdevMatch, accessoryName: String, device: DeviceIdentity) -> Bool {
        matches(DeviceMatch(match), accessoryName: accessoryName, device: device)
    }
}
