/// The udev view of one device node: every property udev sent (or enumeration read), with the ones
/// accessoryd matches on lifted out.
///
/// Any thread (a value).
public struct DeviceIdentity: Sendable, Equatable {
    /// Everything udev reported, unchanged.
    public var properties: [String: String]
    /// `DEVNAME`, e.g. `/dev/ttyUSB0`.
    public var devName: String?
    /// `DEVLINKS` split on spaces, e.g. `/dev/serial/by-id/usb-FTDI_…-if00-port0`.
    public var devLinks: [String]
    /// `ID_VENDOR_ID`, lowercased.
    public var vendorID: String?
    /// `ID_MODEL_ID`, lowercased.
    public var productID: String?
    /// `ID_SERIAL_SHORT`.
    public var serial: String?
    /// `ID_PATH`, the physical port (e.g. `pci-0000:00:14.0-usb-0:2:1.0`).
    public var idPath: String?
    /// `ACCESSORYD_NAME`, set by accessoryd's udev rule for devices it should own.
    public var accessoryName: String?
    /// `SUBSYSTEM`, e.g. `tty`.
    public var subsystem: String?
    /// `DEVPATH`, the sysfs path: the stable key that pairs a `remove` with its `add`.
    public var devPath: String?
    /// False while udevd has not processed the device yet (its rules' properties are missing).
    public var isInitialized: Bool

    public init(properties: [String: String], isInitialized: Bool = true) {
        self.properties = properties
        self.isInitialized = isInitialized
        devName = properties["DEVNAME"]
        devLinks = properties["DEVLINKS"].map { $0.split(separator: " ").map(String.init) } ?? []
        vendorID = properties["ID_VENDOR_ID"]?.lowercased()
        productID = properties["ID_MODEL_ID"]?.lowercased()
        serial = properties["ID_SERIAL_SHORT"]
        idPath = properties["ID_PATH"]
        accessoryName = properties["ACCESSORYD_NAME"]
        subsystem = properties["SUBSYSTEM"]
        devPath = properties["DEVPATH"]
    }
}
