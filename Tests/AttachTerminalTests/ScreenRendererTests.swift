import AttachTerminal
import Testing

/// What the terminal shows: text, hexadecimal, timestamps at line starts, and the time formats.
///
/// Threading: each test on its own thread, with values only.
@Suite struct ScreenRendererTests {
    private let noon = WallTime(year: 2026, month: 11, day: 5, hour: 12, minute: 3, second: 9, millisecond: 7)
    private let later = WallTime(year: 2026, month: 11, day: 5, hour: 12, minute: 3, second: 10, millisecond: 250)

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func timesArePaddedToTheMillisecond() {
        #expect(noon.timeOfDay == "12:03:09.007")
        #expect(noon.dateAndTime == "2026-11-05 12:03:09.007")
        #expect(later.timeOfDay == "12:03:10.250")
    }

    @Test func textPassesThroughUntouchedWithoutOptions() {
        var screen = ScreenRenderer()
        let all: [UInt8] = Array(0...255)
        #expect(screen.render(all, at: noon) == all)
    }

    @Test func timestampsStartEachLineEvenAcrossReads() {
        var screen = ScreenRenderer(timestamps: true)
        #expect(text(screen.render(Array("OK\r\nER".utf8), at: noon)) == "[12:03:09.007] OK\r\n[12:03:09.007] ER")
        // The rest of a line that arrived in two reads has no second stamp.
        #expect(text(screen.render(Array("ROR\r\n".utf8), at: later)) == "ROR\r\n")
        #expect(text(screen.render(Array("x".utf8), at: later)) == "[12:03:10.250] x")
        // A line without LF (CR only) is one line.
        screen.setTimestamps(false)
        #expect(text(screen.render(Array("\ny".utf8), at: later)) == "\ny")
    }

    @Test func hexShowsSixteenBytesALine() {
        var screen = ScreenRenderer(hex: true)
        #expect(text(screen.render([0x41, 0x03, 0x0D, 0x0A], at: noon)) == "41 03 0d 0a")
        let more = screen.render(Array(repeating: 0xFF, count: 13), at: noon)
        #expect(text(more) == " ff ff ff ff ff ff ff ff ff ff ff ff\r\nff")
    }

    @Test func hexWithTimestampsStampsEachHexLine() {
        var screen = ScreenRenderer(hex: true, timestamps: true)
        let out = text(screen.render(Array(0..<17), at: noon))
        #expect(
            out == "[12:03:09.007] 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f\r\n[12:03:09.007] 10"
        )
    }

    @Test func switchingViewsStartsANewLine() {
        var screen = ScreenRenderer()
        _ = screen.render(Array("half".utf8), at: noon)
        #expect(screen.setHex(true) == [0x0D, 0x0A])
        #expect(text(screen.render([0x68], at: noon)) == "68")
        #expect(screen.setHex(false) == [0x0D, 0x0A])
        #expect(screen.setHex(true) == [])
        #expect(screen.breakLine() == [])
        _ = screen.render([0x68], at: noon)
        #expect(screen.breakLine() == [0x0D, 0x0A])
    }
}
