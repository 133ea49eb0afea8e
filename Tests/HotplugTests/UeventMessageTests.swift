import AccessoryTestSupport
import Testing

@Suite("udev message format")
struct UeventMessageTests {
    // The expected values are the constants libudev 252 itself puts in the kernel filter of a monitor
    // filtered on that subsystem (read back with getsockopt(SO_GET_FILTER)); they cover every tail
    // length of the hash (0 to 3 bytes left after the 4-byte words).
    @Test(
        "MurmurHash2 gives libudev's subsystem hashes",
        arguments: [
            ("tty", 0x8afa_90c8), ("usb", 0x0577_c5e5), ("pci", 0x5916_3b92), ("a", 0x9268_5f5e),
            ("ab", 0x1aa1_4063), ("abcd", 0x2687_3021), ("abcde", 0x5f09_a8de), ("", 0),
        ] as [(String, UInt32)]
    )
    func murmur(input: String, expected: UInt32) {
        #expect(MurmurHash2.hash(input) == expected)
    }

    @Test("the header: prefix, magic and hashes in network order, sizes in host order")
    func headerLayout() {
        let m = UeventMessage(action: "add", devPath: "/devices/virtual/tty/x", devName: "/dev/pts/3", seqnum: 7)
        let bytes = m.encoded()
        #expect(Array(bytes[0..<8]) == Array("libudev".utf8) + [0])
        #expect(Array(bytes[8..<12]) == [0xfe, 0xed, 0xca, 0xfe])
        #expect(Array(bytes[12..<16]) == [40, 0, 0, 0])  // header_size (x86-64, arm64: little-endian)
        #expect(Array(bytes[16..<20]) == [40, 0, 0, 0])  // properties_off
        let body = "ACTION=add\0DEVPATH=/devices/virtual/tty/x\0SUBSYSTEM=tty\0DEVNAME=/dev/pts/3\0SEQNUM=7\0"
        #expect(Array(bytes[20..<24]) == [UInt8(body.utf8.count), 0, 0, 0])
        #expect(Array(bytes[24..<28]) == [0x8a, 0xfa, 0x90, 0xc8])  // MurmurHash2("tty")
        #expect(Array(bytes[28..<40]) == [UInt8](repeating: 0, count: 12), "no DEVTYPE, no TAGS")
        #expect(Array(bytes[40...]) == Array(body.utf8))
    }

    @Test("encoding and decoding round-trip, extra properties kept in order")
    func roundTrip() throws {
        let m = UeventMessage(
            action: "change",
            devPath: "/devices/virtual/tty/sim0",
            devName: "/dev/pts/9",
            seqnum: 42,
            extra: [.init("ID_VENDOR_ID", "0403"), .init("DEVLINKS", "/dev/a /dev/b"), .init("EMPTY", "")]
        )
        let decoded = try UeventMessage(decoding: m.encoded())
        #expect(decoded == m)
        #expect(decoded.value(of: "DEVLINKS") == "/dev/a /dev/b")
        #expect(decoded.value(of: "EMPTY") == "")
    }

    @Test("a wrong subsystem hash survives the round trip as an override")
    func hashOverride() throws {
        var m = UeventMessage(action: "add", devPath: "/devices/virtual/tty/x", seqnum: 1)
        m.subsystemHashOverride = MurmurHash2.hash("usb")
        let bytes = m.encoded()
        #expect(Array(bytes[24..<28]) == [0x05, 0x77, 0xc5, 0xe5])
        #expect(try UeventMessage(decoding: bytes).subsystemHashOverride == MurmurHash2.hash("usb"))
    }

    @Test("DEVTYPE and TAGS fill the devtype hash and the tag Bloom filter")
    func devtypeAndTags() {
        let m = UeventMessage(
            action: "add",
            devPath: "/devices/x",
            subsystem: "usb",
            seqnum: 1,
            extra: [.init("DEVTYPE", "usb_device"), .init("TAGS", ":seat:uaccess:")]
        )
        let bytes = m.encoded()
        let devtype = UInt32(bytes[28]) << 24 | UInt32(bytes[29]) << 16 | UInt32(bytes[30]) << 8 | UInt32(bytes[31])
        #expect(devtype == MurmurHash2.hash("usb_device"))
        let bloom = MurmurHash2.bloom64("seat") | MurmurHash2.bloom64("uaccess")
        let hi = UInt32(bytes[32]) << 24 | UInt32(bytes[33]) << 16 | UInt32(bytes[34]) << 8 | UInt32(bytes[35])
        let lo = UInt32(bytes[36]) << 24 | UInt32(bytes[37]) << 16 | UInt32(bytes[38]) << 8 | UInt32(bytes[39])
        #expect(UInt64(hi) << 32 | UInt64(lo) == bloom)
        #expect(bloom.nonzeroBitCount >= 2 && bloom.nonzeroBitCount <= 8)
    }

    @Test("the decoder refuses what libudev refuses")
    func decoderChecks() {
        let good = UeventMessage(action: "add", devPath: "/devices/virtual/tty/x", seqnum: 1).encoded()
        var badMagic = good
        badMagic[11] = 0xff
        #expect(throws: UeventMessage.DecodingError.badMagic(0xfeed_caff)) { try UeventMessage(decoding: badMagic) }
        #expect(throws: UeventMessage.DecodingError.notLibudev) {
            try UeventMessage(decoding: Array("add@/devices/x\0".utf8))
        }
        #expect(throws: UeventMessage.DecodingError.tooShort) { try UeventMessage(decoding: Array(good[0..<60])) }
        let noSeq = UeventMessage(action: "add", devPath: "/devices/virtual/tty/x", seqnum: 0).encoded()
        #expect(throws: UeventMessage.DecodingError.missing("SEQNUM")) { try UeventMessage(decoding: noSeq) }
    }
}
