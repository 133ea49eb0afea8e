import AttachTerminal
import Testing

/// The `s` key's line.
///
/// Threading: each test on its own thread, with values only.
@Suite struct SessionStatisticsTests {
    @Test func countsAndDurationRead() {
        var statistics = SessionStatistics()
        #expect(statistics.summary(elapsed: .zero) == "sent 0 bytes, received 0 bytes in 0:00:00.0")
        statistics.bytesSent = 1
        statistics.bytesReceived = 1_234_567
        #expect(
            statistics.summary(elapsed: .seconds(3_723) + .milliseconds(450))
                == "sent 1 byte, received 1,234,567 bytes in 1:02:03.4"
        )
    }
}
