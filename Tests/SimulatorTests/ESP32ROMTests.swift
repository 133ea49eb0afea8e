import IOLoop
import Testing
import Transports

@testable import AccessorySimulator

/// The `esp32-rom` personality without a pty: the reset circuit on instants given by the test,
/// and the ROM loader's packets as esptool sends them. Test thread only (pure values).
@Suite struct ESP32ROMTests {
    static let t0 = LoopInstant(nanoseconds: 1_000_000_000)
    static let sync = packet(8, [0x07, 0x07, 0x12, 0x20] + [UInt8](repeating: 0x55, count: 32))

    /// A command packet, SLIP-framed: direction 0, `op`, length, `checksum`, `data`.
    static func packet(_ op: UInt8, _ data: [UInt8], checksum: UInt32 = 0) -> [UInt8] {
        let header: [UInt8] = [0, op, UInt8(data.count & 0xFF), UInt8(data.count >> 8)] + le32(checksum)
        return SLIPCodec.encode(header + data)
    }

    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    /// The SLIP frames of the outputs, decoded.
    static func frames(_ outputs: [Output]) -> [[UInt8]] {
        var decoder = SLIPCodec.Decoder()
        return outputs.flatMap { decoder.feed($0.bytes) }
    }

    static func text(_ outputs: [Output]) -> String {
        String(decoding: outputs.flatMap(\.bytes), as: UTF8.self)
    }

    /// Applies esptool's classic reset, one line at a time, `gap` after EN's release until GPIO0
    /// is released; returns every output and the instant it ends.
    static func classicReset(
        _ chip: inout ESP32ROMResponder,
        from start: LoopInstant,
        gap: Duration = ESP32ResetCircuit.enRiseTime + .milliseconds(50)
    ) -> (outputs: [Output], end: LoopInstant) {
        var out: [Output] = []
        var now = start
        out += chip.linesChanged(ModemLineReport(dtr: false, rts: true), at: now)
        now = now + .milliseconds(100)
        out += chip.linesChanged(ModemLineReport(dtr: true, rts: true), at: now)
        now = now + .milliseconds(1)
        out += chip.linesChanged(ModemLineReport(dtr: true, rts: false), at: now)
        if let wake = chip.nextDue, wake <= now + gap { out += chip.due(at: wake) }
        now = now + gap
        out += chip.linesChanged(ModemLineReport(dtr: false, rts: false), at: now)
        return (out, now)
    }

    @Test func flashStrappedChipIgnoresTheLoaderUntilEsptoolsReset() {
        var chip = ESP32ROMResponder(boot: .flash, maxLength: 4096)
        #expect(chip.receive(Self.sync[...]).isEmpty, "the application does not speak the loader's protocol")
        let (boot, end) = Self.classicReset(&chip, from: Self.t0)
        #expect(Self.text(boot).hasSuffix("waiting for download\r\n"))
        #expect(chip.mode == .romLoader)
        let answers = Self.frames(chip.receive(Self.sync[...]))
        #expect(answers.count == 8, "the ROM answers a SYNC eight times")
        #expect(answers.first.map { Array($0.prefix(4)) } == [1, 8, 4, 0])
        #expect(answers.first.map { Array($0[8...]) } == [0, 0, 0, 0], "four status bytes, all well")
        #expect(end > Self.t0)
    }

    @Test func aResetWithGPIO0HighBootsTheApplication() {
        var chip = ESP32ROMResponder(boot: .flash, maxLength: 4096)
        _ = chip.linesChanged(ModemLineReport(dtr: false, rts: true), at: Self.t0)
        #expect(chip.mode == .inReset)
        _ = chip.linesChanged(ModemLineReport(dtr: false, rts: false), at: Self.t0 + .milliseconds(100))
        let rise = Self.t0 + .milliseconds(100) + ESP32ResetCircuit.enRiseTime
        #expect(chip.nextDue == rise, "EN rises a while after its release")
        #expect(chip.due(at: Self.t0 + (.milliseconds(99) + ESP32ResetCircuit.enRiseTime)).isEmpty, "not yet")
        #expect(Self.text(chip.due(at: rise)).contains("SPI_FAST_FLASH_BOOT"))
        #expect(chip.mode == .application)
        #expect(chip.receive(Self.sync[...]).isEmpty)
    }

    @Test func theCapacitorBridgesEsptoolsMomentWithBothLinesUp() {
        // DTR and RTS both asserted releases EN for a moment; GPIO0 goes low before EN has
        // risen, so the chip still starts in its loader. Without the delay (GPIO0 sampled when
        // EN is released) it would start its application.
        // Both lines up for 50 ms, as over RFC 2217 (pyserial polls for each answer).
        var chip = ESP32ROMResponder(boot: .flash, maxLength: 4096)
        _ = chip.linesChanged(ModemLineReport(dtr: false, rts: true), at: Self.t0)
        let released = Self.t0 + .milliseconds(100)
        _ = chip.linesChanged(ModemLineReport(dtr: true, rts: true), at: released)
        _ = chip.linesChanged(ModemLineReport(dtr: true, rts: false), at: released + .milliseconds(50))
        _ = chip.due(at: released + ESP32ResetCircuit.enRiseTime)
        #expect(chip.mode == .romLoader)
        var late = ESP32ROMResponder(boot: .flash, maxLength: 4096)
        _ = late.linesChanged(ModemLineReport(dtr: false, rts: true), at: Self.t0)
        _ = late.linesChanged(ModemLineReport(dtr: true, rts: true), at: released)
        // GPIO0 pulled low only after EN has risen: too late, the application starts.
        let after = released + ESP32ResetCircuit.enRiseTime + .milliseconds(1)
        _ = late.linesChanged(ModemLineReport(dtr: true, rts: false), at: after)
        #expect(late.mode == .application)
    }

    @Test func downloadStrappedChipStartsInTheLoader() {
        var chip = ESP32ROMResponder(boot: .download, maxLength: 4096)
        #expect(chip.mode == .romLoader)
        #expect(Self.frames(chip.receive(Self.sync[...])).count == 8)
    }

    @Test func readRegisterAnswersTheChipDetectMagicAndTheMAC() {
        var chip = ESP32ROMResponder(boot: .download, maxLength: 4096)
        func read(_ address: UInt32) -> UInt32? {
            guard let frame = Self.frames(chip.receive(Self.packet(0x0A, Self.le32(address))[...])).first,
                frame.count == 12, frame[0] == 1, frame[1] == 0x0A, frame[8] == 0
            else { return nil }
            return frame[4..<8].reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }
        #expect(read(0x4000_1000) == 0x00F0_1D83)
        // esptool's MAC: word 2's low half, then word 1, big-endian.
        #expect(read(0x3FF5_A008) == 0x240A)
        #expect(read(0x3FF5_A004) == 0xC45A_17E2)
        #expect(read(0x1234_5678) == 0)
    }

    @Test func unknownCommandsAndBadChecksumsAreRefused() {
        var chip = ESP32ROMResponder(boot: .download, maxLength: 4096)
        let security = Self.frames(chip.receive(Self.packet(0x14, [])[...]))
        #expect(security.first.map { Array($0[8...]) } == [1, 0x05, 0, 0], "GET_SECURITY_INFO: an ESP32 has none")
        let begin = Self.le32(4) + Self.le32(1) + Self.le32(0x1800) + Self.le32(0x4008_0000)
        #expect(Self.frames(chip.receive(Self.packet(0x05, begin)[...])).first?[8] == 0)
        let block = Self.le32(4) + Self.le32(0) + Self.le32(0) + Self.le32(0) + [1, 2, 3, 4]
        let wrong = Self.frames(chip.receive(Self.packet(0x07, block, checksum: 0)[...]))
        #expect(wrong.first.map { Array($0[8...]) } == [1, 0x07, 0, 0], "bad checksum")
        let right = UInt32(0xEF ^ 1 ^ 2 ^ 3 ^ 4)
        #expect(Self.frames(chip.receive(Self.packet(0x07, block, checksum: right)[...])).first?[8] == 0)
        // MEM_END with an entry point: the ROM answers, then the stub greets and answers with two status bytes.
        let end = Self.frames(chip.receive(Self.packet(0x06, Self.le32(0) + Self.le32(0x4008_0000))[...]))
        #expect(end.count == 2 && end[1] == Array("OHAI".utf8))
        #expect(chip.mode == .stub)
        let stubRead = Self.frames(chip.receive(Self.packet(0x0A, Self.le32(0x4000_1000))[...]))
        #expect(stubRead.first?.count == 10)
    }
}
