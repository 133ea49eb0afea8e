import IOLoop
import Transports

/// The `esp32-rom` personality: an ESP32 behind the usual DTR/RTS auto-reset circuit
/// (``ESP32ResetCircuit``), whose ROM serial loader answers esptool far enough for `chip-id`
/// and `read-mac`: SLIP-framed command packets, `SYNC`, `READ_REG` and `WRITE_REG` on
/// ``ESP32Registers``, and the RAM download (`MEM_BEGIN`/`MEM_DATA`/`MEM_END`) esptool uses to
/// start its flasher stub. The uploaded code is not run: `MEM_END` with an entry point is taken
/// as starting esptool's stub, which greets with `OHAI` and then answers the same commands with
/// the stub's two status bytes instead of the ROM's four. Any other command is refused with the
/// ROM's "invalid message" status (esptool then falls back, as with a real ESP32: it has no
/// `GET_SECURITY_INFO`).
///
/// Strapped ``ESP32Boot/flash`` it starts in its application, which ignores input; only a reset
/// through the lines that ends with GPIO0 low enters the loader. The ROM's boot line
/// (`rst:… boot:0x3 … waiting for download`) is printed at each start, as esptool expects.
///
/// Owned by one accessory; loop thread only.
struct ESP32ROMResponder: Responder {
    /// What runs on the chip.
    enum Mode: Equatable {
        case application
        case inReset
        case romLoader
        case stub
    }

    let structuralBytes: Set<UInt8> = [SLIPCodec.end]
    private(set) var mode: Mode
    private var circuit: ESP32ResetCircuit
    private var registers = ESP32Registers()
    private var slip: SLIPCodec.Decoder
    /// The RAM download in progress: blocks expected and the next sequence number.
    private var download: (blocks: UInt32, next: UInt32)?

    /// Command codes of the ROM loader protocol.
    enum Command: UInt8 {
        case memBegin = 0x05
        case memEnd = 0x06
        case memData = 0x07
        case sync = 0x08
        case writeReg = 0x09
        case readReg = 0x0A
    }

    /// Error codes in a failed response's second status byte.
    static let invalidMessage: UInt8 = 0x05
    static let failedToAct: UInt8 = 0x06
    static let invalidChecksum: UInt8 = 0x07

    init(boot: ESP32Boot, maxLength: Int) {
        circuit = ESP32ResetCircuit(boot: boot)
        mode = boot == .download ? .romLoader : .application
        slip = SLIPCodec.Decoder(maxLength: maxLength)
    }

    var nextDue: LoopInstant? { circuit.startTime }

    mutating func linesChanged(_ lines: ModemLineReport, at now: LoopInstant) -> [Output] {
        // A start that fell due before this change happened first (its timer may not have run).
        let started = due(at: now)
        circuit.set(lines, at: now)
        if circuit.inReset && mode != .inReset {
            mode = .inReset
            download = nil
            slip = SLIPCodec.Decoder(maxLength: slip.maxLength)
        }
        return started
    }

    mutating func due(at now: LoopInstant) -> [Output] {
        guard circuit.starts(at: now) else { return [] }
        if circuit.bootPinLow {
            mode = .romLoader
            return [.unsolicited(Array(Self.downloadBootLine.utf8))]
        }
        mode = .application
        return [.unsolicited(Array(Self.flashBootLine.utf8))]
    }

    /// What the ROM prints as it starts: the reset cause and the boot mode GPIO0 chose.
    static let downloadBootLine = "rst:0x1 (POWERON_RESET),boot:0x3 (DOWNLOAD_BOOT)\r\nwaiting for download\r\n"
    static let flashBootLine = "rst:0x1 (POWERON_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)\r\n"

    mutating func receive(_ bytes: ArraySlice<UInt8>) -> [Output] {
        // In reset or in its application the chip does not speak the loader's protocol.
        guard mode == .romLoader || mode == .stub else { return [] }
        var outputs: [Output] = []
        for packet in slip.feed(bytes) { outputs += handle(packet) }
        return outputs
    }

    /// One command packet: direction 0, command, data length (LE16), checksum (LE32), data.
    private mutating func handle(_ packet: [UInt8]) -> [Output] {
        guard packet.count >= 8, packet[0] == 0 else { return [] }
        let op = packet[1]
        let data = Array(packet[8...])
        guard Int(Self.le16(packet, at: 2)) == data.count, let command = Command(rawValue: op) else {
            return [response(op, error: Self.invalidMessage)]
        }
        let checksum = Self.le32(packet, at: 4)
        switch command {
        case .sync:
            guard data == [0x07, 0x07, 0x12, 0x20] + [UInt8](repeating: 0x55, count: 32) else {
                return [response(op, error: Self.invalidMessage)]
            }
            // The ROM answers a SYNC eight times, with a non-zero value (the stub with 0).
            let value: UInt32 = mode == .stub ? 0 : 0x2012_0707
            return Array(repeating: response(op, value: value), count: 8)
        case .readReg:
            guard data.count == 4 else { return [response(op, error: Self.invalidMessage)] }
            return [response(op, value: registers.read(Self.le32(data, at: 0)))]
        case .writeReg:
            guard !data.isEmpty, data.count % 16 == 0 else { return [response(op, error: Self.invalidMessage)] }
            for i in stride(from: 0, to: data.count, by: 16) {
                let (address, value, mask) = (
                    Self.le32(data, at: i), Self.le32(data, at: i + 4), Self.le32(data, at: i + 8)
                )
                registers.write(address, value: value, mask: mask)
            }
            return [response(op)]
        case .memBegin:
            guard data.count == 16 else { return [response(op, error: Self.invalidMessage)] }
            download = (blocks: Self.le32(data, at: 4), next: 0)
            return [response(op)]
        case .memData:
            guard data.count >= 16, let d = download, Self.le32(data, at: 4) == d.next, d.next < d.blocks,
                Int(Self.le32(data, at: 0)) == data.count - 16
            else { return [response(op, error: Self.failedToAct)] }
            let payload = data[16...]
            guard UInt32(payload.reduce(UInt8(0xEF), ^)) == checksum else {
                return [response(op, error: Self.invalidChecksum)]
            }
            download = (blocks: d.blocks, next: d.next + 1)
            return [response(op)]
        case .memEnd:
            guard data.count == 8, download != nil else { return [response(op, error: Self.failedToAct)] }
            download = nil
            let execute = Self.le32(data, at: 0) == 0
            guard execute, mode == .romLoader else { return [response(op)] }
            // The ROM answers, then jumps to the entry point: esptool's stub, which says OHAI.
            mode = .stub
            return [responseAsROM(op), .unsolicited(SLIPCodec.encode(Array("OHAI".utf8)))]
        }
    }

    /// A response packet: direction 1, the command, data length, value, then the status: two
    /// bytes from the stub, four from the ROM (the last two reserved).
    private func response(_ op: UInt8, value: UInt32 = 0, error: UInt8 = 0) -> Output {
        build(op, value: value, error: error, statusBytes: mode == .stub ? 2 : 4)
    }

    private func responseAsROM(_ op: UInt8) -> Output { build(op, value: 0, error: 0, statusBytes: 4) }

    private func build(_ op: UInt8, value: UInt32, error: UInt8, statusBytes: Int) -> Output {
        var status = [UInt8](repeating: 0, count: statusBytes)
        if error != 0 {
            status[0] = 1
            status[1] = error
        }
        var packet: [UInt8] = [0x01, op, UInt8(statusBytes), 0]
        packet += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        return .reply(SLIPCodec.encode(packet + status))
    }

    static func le16(_ b: [UInt8], at i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }

    static func le32(_ b: [UInt8], at i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }
}
