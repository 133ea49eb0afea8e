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
            try client.write("abcdefgh\n")
            // The first half now, the rest only after the pause.
            let first = try client.read(count: 4)
            #expect(first == Array("abcd".utf8))
            #expect(client.readAvailable(milliseconds: 50).isEmpty, "the second half waits for the pause")
            let rest = try client.read(count: 5, seconds: 5)
            #expect(rest == Array("efgh\n".utf8))
        }
    }

    @Test func aSplitPauseMustBePositive() {
        var configuration = SimulatorConfiguration()
        configuration.splitReplies = .zero
        #expect(throws: SimulatorError.self) { try configuration.validate() }
    }
}
