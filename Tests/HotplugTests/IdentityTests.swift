import AccessoryTestSupport
import Hotplug
import SystemCalls
import Testing

/// A device as udevd reports a USB serial adapter, with overrides.
func usbSerial(_ overrides: [String: String?] = [:]) -> DeviceIdentity {
    var p = [
        "DEVNAME": "/dev/ttyUSB0",
        "DEVPATH": "/devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.0/ttyUSB0/tty/ttyUSB0",
        "SUBSYSTEM": "tty",
        "ID_VENDOR_ID": "0403",
        "ID_MODEL_ID": "6001",
        "ID_SERIAL_SHORT": "A10K1XYZ",
        "ID_PATH": "pci-0000:00:14.0-usb-0:2:1.0",
        "DEVLINKS":
            "/dev/serial/by-id/usb-FTDI_FT232R_A10K1XYZ-if00-port0 /dev/serial/by-path/pci-0000:00:14.0-usb-0:2:1.0-port0",
    ]
    for (k, v) in overrides { p[k] = v }
    return DeviceIdentity(properties: p)
}

@Suite("device identity and matching")
struct IdentityTests {
    @Test("udev properties are lifted into the identity; hex ids lowercased, DEVLINKS split")
    func parsing() {
        let d = usbSerial(["ID_VENDOR_ID": "10C4", "ID_MODEL_ID": "EA60", "ACCESSORYD_NAME": "gps"])
        #expect(d.devName == "/dev/ttyUSB0")
        #expect(d.vendorID == "10c4")
        #expect(d.productID == "ea60")
        #expect(d.serial == "A10K1XYZ")
        #expect(d.idPath == "pci-0000:00:14.0-usb-0:2:1.0")
        #expect(d.accessoryName == "gps")
        #expect(d.subsystem == "tty")
        #expect(d.devPath?.hasSuffix("/tty/ttyUSB0") == true)
        #expect(d.devLinks.count == 2)
        #expect(d.devLinks.first == "/dev/serial/by-id/usb-FTDI_FT232R_A10K1XYZ-if00-port0")
        #expect(d.isInitialized)
        #expect(d.properties["ID_VENDOR_ID"] == "10C4", "the raw properties stay as sent")
    }

    @Test("missing properties are nil; DEVLINKS with repeated spaces gives no empty links")
    func sparse() {
        let d = DeviceIdentity(properties: ["DEVLINKS": " /dev/a  /dev/b "], isInitialized: false)
        #expect(d.devName == nil && d.vendorID == nil && d.serial == nil && d.devPath == nil)
        #expect(d.devLinks == ["/dev/a", "/dev/b"])
        #expect(!d.isInitialized)
    }

    @Test(
        "every configured field must match; hex ids ignore case and 0x",
        arguments: [
            (DeviceMatch(vendorID: "0403"), true),
            (DeviceMatch(vendorID: "0403", productID: "6001"), true),
            (DeviceMatch(vendorID: "0x0403", productID: "6001"), true),
            (DeviceMatch(vendorID: "0403", productID: "6001", serial: "A10K1XYZ"), true),
            (DeviceMatch(vendorID: "0403", productID: "6015"), false),
            (DeviceMatch(vendorID: "10c4", productID: "6001"), false),
            (DeviceMatch(serial: "A10K1XYZ"), true),
            (DeviceMatch(serial: "a10k1xyz"), false),
            (DeviceMatch(vendorID: "0403", serial: "OTHER"), false),
            (DeviceMatch(byID: "usb-FTDI_FT232R_A10K1XYZ-if00-port0"), true),
            (DeviceMatch(byID: "usb-FTDI_FT232R_A10K1XYZ-if01-port0"), false),
            (DeviceMatch(vendorID: "0403", byID: "usb-FTDI_FT232R_A10K1XYZ-if00-port0"), true),
            (DeviceMatch(), false),
        ]
    )
    func udevMatch(match: DeviceMatch, expected: Bool) {
        let upper = usbSerial(["ID_VENDOR_ID": "0403", "ID_MODEL_ID": "6001"])
        #expect(IdentityMatching.matches(match, accessoryName: "meter", device: upper) == expected)
    }

    @Test("hex case on the device side does not matter either")
    func deviceHexCase() {
        let d = usbSerial(["ID_VENDOR_ID": "10C4", "ID_MODEL_ID": "EA60"])
        #expect(
            IdentityMatching.matches(DeviceMatch(vendorID: "10c4", productID: "ea60"), accessoryName: "x", device: d)
        )
        #expect(IdentityMatching.matches(DeviceMatch(vendorID: "10C4"), accessoryName: "x", device: d))
    }

    @Test("a device without the property does not match a match on it")
    func missingProperty() {
        let d = usbSerial(["ID_SERIAL_SHORT": nil, "DEVLINKS": nil])
        #expect(!IdentityMatching.matches(DeviceMatch(serial: "A10K1XYZ"), accessoryName: "x", device: d))
        #expect(
            !IdentityMatching.matches(
                DeviceMatch(byID: "usb-FTDI_FT232R_A10K1XYZ-if00-port0"),
                accessoryName: "x",
                device: d
            )
        )
        #expect(IdentityMatching.matches(DeviceMatch(vendorID: "0403"), accessoryName: "x", device: d))
    }

    @Test("ACCESSORYD_NAME from our udev rule matches by name whatever the ids")
    func taggedByRule() {
        let d = usbSerial(["ACCESSORYD_NAME": "gps"])
        let other = DeviceMatch(vendorID: "ffff")
        #expect(IdentityMatching.matches(other, accessoryName: "gps", device: d))
        #expect(!IdentityMatching.matches(other, accessoryName: "meter", device: d))
        #expect(IdentityMatching.matches(DeviceMatch(), accessoryName: "gps", device: d))
    }

    @Test("path: DEVNAME or a DEVLINKS entry, as written")
    func pathAsWritten() {
        let d = usbSerial()
        #expect(IdentityMatching.matches(path: "/dev/ttyUSB0", device: d))
        #expect(IdentityMatching.matches(path: "/dev/serial/by-id/usb-FTDI_FT232R_A10K1XYZ-if00-port0", device: d))
        #expect(!IdentityMatching.matches(path: "/dev/ttyUSB1", device: d))
        #expect(!IdentityMatching.matches(path: "/dev/ttyUSB", device: d))
    }

    @Test("path: a link of our own that leads to the device's node matches too")
    func pathThroughLink() throws {
        let pty = try PseudoTerminal.open()
        let slavePath = pty.slavePath
        let master = pty.master
        let dir = try FileIO.makeTemporaryDirectory(prefix: "/tmp/hotplug-id-")
        let link = dir + "/meter"
        try FileIO.symlink(target: slavePath, at: link)
        defer {
            try? FileIO.unlink(link)
            try? FileIO.removeDirectory(dir)
        }
        let d = DeviceIdentity(properties: ["DEVNAME": slavePath, "SUBSYSTEM": "tty"])
        #expect(IdentityMatching.matches(path: link, device: d))
        let other = DeviceIdentity(properties: ["DEVNAME": "/dev/pts/999999"])
        #expect(!IdentityMatching.matches(path: link, device: other))
        #expect(!IdentityMatching.matches(path: dir + "/absent", device: d))
        master.close()
    }
}
