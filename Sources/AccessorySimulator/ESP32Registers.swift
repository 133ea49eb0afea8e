/// The registers a simulated ESP32 (an ESP32-D0WD-V3, revision v3.0, 40 MHz crystal) answers
/// `READ_REG` with: the chip-detect magic word, the eFuse words esptool decodes (MAC, package,
/// revision, features), the APB date register (revision bit), the UART clock divider (crystal
/// estimate at 115200 Bd) and the ROM's RTC calibration (crystal estimate of the flasher stub).
/// Any other address reads 0; `WRITE_REG` stores into the map.
///
/// Threading: a value, owned by its responder (loop thread only).
struct ESP32Registers {
    /// The base MAC burned into eFuse block 0: 24:0a:c4 is an Espressif prefix.
    static let mac: [UInt8] = [0x24, 0x0A, 0xC4, 0x5A, 0x17, 0xE2]
    static let chipDetectMagicAddress: UInt32 = 0x4000_1000
    static let chipDetectMagic: UInt32 = 0x00F0_1D83
    static let efuseBase: UInt32 = 0x3FF5_A000

    private var values: [UInt32: UInt32]

    init() {
        let mac = Self.mac.map(UInt32.init)
        let efuse = Self.efuseBase
        values = [
            Self.chipDetectMagicAddress: Self.chipDetectMagic,
            // Words 1 and 2: the MAC, low four bytes then high two (word 2's upper half is the
            // CRC byte, not checked by the host).
            efuse + 4: mac[2] << 24 | mac[3] << 16 | mac[4] << 8 | mac[5],
            efuse + 8: mac[0] << 8 | mac[1],
            // Word 3: package D0WD (bits 9-11 = 1), revision bit 0 (bit 15).
            efuse + 12: 1 << 9 | 1 << 15,
            // Word 4: the 8 MHz oscillator's calibration (low byte), used with RTCCALICFG1.
            efuse + 16: 80,
            // Word 5: revision bit 1 (bit 20).
            efuse + 20: 1 << 20,
            // APB_CTL_DATE: revision bit 2 (bit 31).
            0x3FF6_607C: 1 << 31,
            // UART0 clock divider at 115200 Bd from a 40 MHz crystal.
            0x3FF4_0014: 40_000_000 / 115_200,
            // RTCCALICFG1: the ROM's calibration value (bits 7-31), 40 MHz with word 4's 80.
            0x3FF5_F06C: 1280 << 7,
        ]
    }

    func read(_ address: UInt32) -> UInt32 { values[address] ?? 0 }

    mutating func write(_ address: UInt32, value: UInt32, mask: UInt32) {
        values[address] = (read(address) & ~mask) | (value & mask)
    }
}
