/// What a device must carry to be an accessory that names no path: the udev properties that
/// must all be equal (``IdentityMatching/matches(_:accessoryName:device:)``). Hotplug's own
/// type, so that it needs nothing from the configuration; the daemon maps the configuration's
/// `match:` to it where the two meet (AccessoryCore).
///
/// Threading: a value. Any thread.
package struct DeviceMatch: Sendable, Equatable {
    /// `ID_VENDOR_ID`, hex (compared without regard to case or a `0x` prefix).
    package var vendorID: String?
    /// `ID_MODEL_ID`, hex (compared as ``vendorID`` is).
    package var productID: String?
    /// `ID_SERIAL_SHORT`, exactly.
    package var serial: String?
    /// A link name under `/dev/serial/by-id/`.
    package var byID: String?

    package init(vendorID: String? = nil, productID: String? = nil, serial: String? = nil, byID: String? = nil) {
        self.vendorID = vendorID
        self.productID = productID
        self.serial = serial
        self.byID = byID
    }
}
