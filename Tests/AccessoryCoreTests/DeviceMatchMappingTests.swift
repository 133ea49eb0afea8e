import AccessoryConfig
import Hotplug
import Testing

@testable import AccessoryCore

/// The configuration's `match:` becomes Hotplug's own match type field by field
/// (`DeviceMatch+Config.swift`, the one place the two meet).
@Suite("device match mapping")
struct DeviceMatchMappingTests {
    @Test("each of the four fields lands in its own field; an empty match stays empty")
    func fieldByField() {
        let configured = UdevMatch(vendorID: "0403", productID: "6001", serial: "A10K1XYZ", byID: "usb-FTDI-if00")
        #expect(
            DeviceMatch(configured)
                == DeviceMatch(vendorID: "0403", productID: "6001", serial: "A10K1XYZ", byID: "usb-FTDI-if00")
        )
        #expect(DeviceMatch(UdevMatch(serial: "S")) == DeviceMatch(serial: "S"))
        #expect(DeviceMatch(UdevMatch()) == DeviceMatch())
    }

    @Test("a configured match decides as Hotplug's own would")
    func decidesTheSame() {
        let device = DeviceIdentity(properties: ["ID_VENDOR_ID": "0403", "ID_MODEL_ID": "6001", "ID_SERIAL_SHORT": "S"])
        #expect(
            IdentityMatching.matches(UdevMatch(vendorID: "0x0403", serial: "S"), accessoryName: "a", device: device)
        )
        #expect(!IdentityMatching.matches(UdevMatch(productID: "6015"), accessoryName: "a", device: device))
        #expect(!IdentityMatching.matches(UdevMatch(), accessoryName: "a", device: device))
    }
}
