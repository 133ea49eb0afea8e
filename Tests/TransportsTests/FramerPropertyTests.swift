import AccessoryTestSupport
import Testing
import Transports

/// Properties every framer must have, checked over seeded random inputs: round trips, the same
/// result however the input is split, oversize frames skipped with resync, garbage skipped.
@Suite struct FramerPropertyTests {
    @Test(arguments: FramerCase.all)
    func randomPayloadsRoundTrip(_ c: FramerCase) throws {
        for seed in 0..<300 {
            var rng = SplitMix64(seed: UInt64(seed))
            let payloads = (0..<Int.random(in: 1...8, using: &rng)).map { _ in c.payload(&rng, c.maxFrameSize) }
            let framer = c.make()
            var stream: [UInt8] = []
            for p in payloads { stream += try framer.encode(p) }
            let events = decode(c.make, [stream[...]])
            #expect(events == payloads.map { .frame($0) }, "seed \(seed)")
            if seed < 20 {
                // One byte at a time: escapes and delimiters always straddle chunk edges.
                #expect(decode(c.make, stream.map { [$0][...] }) == events, "bytewise, seed \(seed)")
            }
        }
    }

    @Test(arguments: FramerCase.all)
    func splittingAtEveryBoundaryChangesNothing(_ c: FramerCase) throws {
        for seed in 0..<8 {
            var rng = SplitMix64(seed: UInt64(1000 + seed))
            let encoder = c.make()
            var stream: [UInt8] = []
            var payloads: [[UInt8]] = []
            for i in 0..<5 {
                if i == 2 {
                    stream += c.oversize()  // an oversize frame in the middle of the stream
                }
                let p = c.payload(&rng, Swift.min(c.maxFrameSize, 40))
                payloads.append(p)
                stream += try encoder.encode(p)
            }
            let whole = decode(c.make, [stream[...]])
            #expect(frames(whole) == payloads, "seed \(seed)")
            #expect(whole.filter { if case .dropped = $0 { true } else { false } }.count == 1)
            for cut in 0...stream.count {
                let two = decode(c.make, [stream[..<cut], stream[cut...]])
                #expect(two == whole, "seed \(seed), cut at \(cut) of \(stream.count)")
                if two != whole { return }
            }
            for _ in 0..<100 {
                let a = Int.random(in: 0...stream.count, using: &rng)
                let b = Int.random(in: a...stream.count, using: &rng)
                #expect(decode(c.make, [stream[..<a], stream[a..<b], stream[b...]]) == whole)
            }
        }
    }

    @Test(arguments: FramerCase.all)
    func oversizeFramesAreSkippedAndDecodingResumes(_ c: FramerCase) throws {
        let framer = c.make()
        let before: [UInt8] = Array(repeating: 0x31, count: Swift.max(c.minPayload, 3))
        let after: [UInt8] = Array(repeating: 0x32, count: Swift.max(c.minPayload, 2))
        let stream = try framer.encode(before) + c.oversize() + framer.encode(after)
        let events = decode(c.make, [stream[...]])
        #expect(events.count == 3)
        #expect(events.first == .frame(before))
        #expect(events.last == .frame(after))
        guard events.count == 3, case .dropped(.frameTooLarge(let limit, _)) = events[1] else {
            Issue.record("expected a frameTooLarge drop, got \(events)")
            return
        }
        #expect(limit == c.maxFrameSize)
        // Encoding refuses a payload past the limit.
        let big = [UInt8](repeating: 0x61, count: c.maxFrameSize + 1)
        #expect(throws: FramingError.self) { _ = try framer.encode(big) }
    }

    @Test(arguments: FramerCase.all.filter { $0.garbage != nil })
    func garbageBetweenFramesIsSkipped(_ c: FramerCase) throws {
        let makeGarbage = try #require(c.garbage)
        for seed in 0..<200 {
            var rng = SplitMix64(seed: UInt64(5000 + seed))
            let framer = c.make()
            var stream: [UInt8] = []
            var payloads: [[UInt8]] = []
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                stream += makeGarbage(&rng)
                let p = c.payload(&rng, Swift.min(c.maxFrameSize, 30))
                payloads.append(p)
                stream += try framer.encode(p)
            }
            let events = decode(c.make, [stream[...]])
            #expect(isSubsequence(payloads, of: frames(events)), "seed \(seed): \(payloads) in \(events)")
            // Split anywhere: the same events.
            let cut = Int.random(in: 0...stream.count, using: &rng)
            #expect(decode(c.make, [stream[..<cut], stream[cut...]]) == events)
        }
    }

    /// Megabytes without a frame end: one report, bounded work, and the next frame decodes.
    @Test(arguments: FramerCase.all.filter { $0.garbage != nil })
    func endlessFrameStaysBounded(_ c: FramerCase) throws {
        var framer = c.make()
        let chunk = [UInt8](repeating: 0x61, count: 64 * 1024)
        var dropped = 0
        for _ in 0..<64 {  // 4 MiB
            for e in framer.ingest(chunk) {
                if case .dropped(.frameTooLarge) = e { dropped += 1 } else { Issue.record("unexpected \(e)") }
            }
        }
        #expect(dropped == 1)
        let payload = [UInt8](repeating: 0x62, count: Swift.max(1, c.minPayload))
        // End the endless frame the way this framing ends frames, then send a good one.
        let ender = try framer.encode([])
        let events = framer.ingest(ender + (try framer.encode(payload)))
        #expect(frames(events).last == payload, "\(events)")
    }
}
