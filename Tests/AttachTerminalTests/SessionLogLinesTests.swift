import AttachTerminal
import Testing

/// The log file's lines: both directions, timestamped at their first byte, one line each.
///
/// Threading: each test on its own thread, with values only.
@Suite struct SessionLogLinesTests {
    private let t1 = WallTime(year: 2026, month: 1, day: 2, hour: 3, minute: 4, second: 5, millisecond: 6)
    private let t2 = WallTime(year: 2026, month: 1, day: 2, hour: 3, minute: 4, second: 5, millisecond: 900)

    @Test func linesEndAtCRAtLFAndAtCRLFOnce() {
        var lines = SessionLogLines()
        #expect(lines.add(Array("AT".utf8), .toDevice, at: t1) == [])
        #expect(lines.add(Array("I\r".utf8), .toDevice, at: t2) == ["2026-01-02 03:04:05.006 > ATI"])
        #expect(
            lines.add(Array("\r\nOK\r\n".utf8), .fromDevice, at: t2)
                == ["2026-01-02 03:04:05.900 < ", "2026-01-02 03:04:05.900 < OK"]
        )
        #expect(
            lines.add(Array("a\nb\n\n".utf8), .fromDevice, at: t1).map { String($0.suffix(3)) } == [
                "< a", "< b", " < ",
            ]
        )
    }

    @Test func directionsAreKeptApartWhenInterleaved() {
        var lines = SessionLogLines()
        _ = lines.add(Array("he".utf8), .toDevice, at: t1)
        _ = lines.add(Array("he".utf8), .fromDevice, at: t1)
        #expect(lines.add(Array("llo\n".utf8), .toDevice, at: t2) == ["2026-01-02 03:04:05.006 > hello"])
        #expect(lines.add(Array("llo\n".utf8), .fromDevice, at: t2) == ["2026-01-02 03:04:05.006 < hello"])
    }

    @Test func unprintableBytesAreEscapedAndUnfinishedLinesFlushed() {
        var lines = SessionLogLines()
        #expect(lines.add([0x03, 0x5C, 0x41, 0xFF, 0x1B], .toDevice, at: t1) == [])
        #expect(lines.add(Array("tail".utf8), .fromDevice, at: t2) == [])
        #expect(
            lines.flush() == ["2026-01-02 03:04:05.006 > \\x03\\\\A\\xff\\x1b", "2026-01-02 03:04:05.900 < tail"]
        )
        #expect(lines.flush() == [])
    }
}
