import AccessorySimulator
import Testing

/// The `framed` personality's length-prefixed framing, and replies split across two writes.
///
/// Threading: each test on its own thread; the simulator runs on a spawned loop.
@Suite struct LengthPrefixAndSplitTests {
    @Test func lengthPrefixedFramesAreEchoedReEncoded() throws {
        try withSimulator(SimulatorConfiguration(personality: .framed(.lengthPrefixed))) { sim, _ in
            let client = try SlaveClient(path: sim.currentSlavePath!)
            for payload in [[UInt8]([1, 2, 3]), [0, 0], Array(0...255), []] {
                let encoded = try #require(LengthPrefixCodec.encode(payload))
                // In two pieces (the prefix split in the middle) to exercise the stream decoder.
                try client.write(Array(encoded.prefix(1)))
                try client.write(Array(encoded.dropFirst(1)))
                let reply = try client.read(count: encoded.count)
                #expect(reply == encoded)
            }
        }
    }

    @Test func tooLongLengthPrefixedFramesAreSkippedAndTheNextIsEchoed() throws {
        var decoder = LengthPrefixCodec.Decoder(maxLength: 4)
        #expect(decoder.feed([0, 6, 1, 2, 3]).isEmpty)
        #expect(decoder.feed([4, 5, 6, 0, 2, 9, 9]) == [[9, 9]])
        #expect(decoder.errors == 1)
        #expect(LengthPrefixCodec.encode([UInt8](repeating: 1, count: 0x1_0000)) == nil)
    }

    @Test func splitRepliesLeaveInTwoWrites() throws {
        var configuration = SimulatorConfiguration(personality: .echo)
        configuration.splitReplies = .milliseconds(150)
        try withSimulator(configuration) { sim, _ in
            let client = try SlaveClient(path: sim.currentSlavePath!)
            let sent = SlaveClient.now()
            try client.write("abcdefgh\n")
            // The first half at once; the rest never before the pause has passed. (If this thread
            // was held up past the pause, both halves may be there together: only then may the
            // first read hold more than the first half.)
            let first = try client.read(count: 4)
            let firstAfter = SlaveClient.now() - sent
            #expect(first == Array("abcd".utf8) || firstAfter >= 0.15, "\(first) after \(firstAfter) s")
            let rest = first.count >= 9 ? [] : try client.read(count: 9 - first.count, seconds: 5)
            let whole = first + rest
            #expect(whole == Array("abcdefgh\n".utf8))
            #expect(SlaveClient.now() - sent >= 0.15, "the second half waited for the pause")
        }
    }

    @Test func aSplitPauseMustBePositive() {
        var configuration = SimulatorConfiguration()
        configuration.splitReplies = .zero
        #expect(throws: SimulatorError.self) { try configuration.validate() }
    }
}
