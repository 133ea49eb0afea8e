import AccessoryTestSupport
import IOLoop
import Testing
import Transports

/// Framers whose frames end on silence, with an explicit clock (no loop).
@Suite struct TimedFramerTests {
    let t0 = LoopInstant(nanoseconds: 1_000_000_000)
    func at(_ ms: Int64) -> LoopInstant { t0 + .milliseconds(ms) }

    // MARK: - Idle gap

    @Test func aFrameEndsAfterTheGap() {
        var f = IdleGapFramer(gap: .milliseconds(10))
        #expect(f.idleDeadline == nil)
        #expect(f.ingest([1, 2], at: at(0)).isEmpty)
        #expect(f.idleDeadline == at(10))
        #expect(f.ingest([3, 4], at: at(5)).isEmpty)
        #expect(f.idleDeadline == at(15), "each byte restarts the gap")
        #expect(f.flush(at: at(14)).isEmpty)
        #expect(f.flush(at: at(15)) == [.frame([1, 2, 3, 4])])
        #expect(f.idleDeadline == nil)
        #expect(f.flush(at: at(100)).isEmpty)
    }

    @Test func bytesAfterTheDeadlineCompleteThePendingFrameFirst() {
        var f = IdleGapFramer(gap: .milliseconds(10))
        _ = f.ingest([1], at: at(0))
        // The timer has not fired (a busy loop), but the silence happened.
        #expect(f.ingest([2], at: at(30)) == [.frame([1])])
        #expect(f.flush(at: at(40)) == [.frame([2])])
    }

    @Test func oversizeIdleFramesAreDroppedUntilSilence() throws {
        var f = IdleGapFramer(gap: .milliseconds(10), maxFrameSize: 4)
        #expect(f.ingest([1, 2, 3], at: at(0)).isEmpty)
        #expect(f.ingest([4, 5], at: at(1)) == [.dropped(.frameTooLarge(limit: 4, size: nil))])
        #expect(f.ingest([6, 7, 8, 9, 10, 11], at: at(2)).isEmpty, "still the same oversize frame")
        #expect(f.flush(at: at(12)).isEmpty, "the end of the oversize frame is silent")
        #expect(f.ingest([7], at: at(20)).isEmpty)
        #expect(f.flush(at: at(30)) == [.frame([7])])
        #expect(try f.encode([1, 2]) == [1, 2], "outbound payloads go out unchanged")
        #expect(throws: FramingError.payloadTooLarge(limit: 4, size: 5)) { _ = try f.encode([1, 2, 3, 4, 5]) }
    }

    @Test func idleFramesDoNotDependOnHowBytesWereChunked() {
        // Bytes arriving within the gap, however chunked, make the same frames.
        var rng = SplitMix64(seed: 77)
        for _ in 0..<200 {
            let bursts = (0..<Int.random(in: 1...5, using: &rng)).map { _ in
                rng.bytes(Int.random(in: 1...40, using: &rng))
            }
            var f = IdleGapFramer(gap: .milliseconds(10), maxFrameSize: 64)
            var events: [FramerEvent] = []
            var now = at(0)
            for burst in bursts {
                var i = 0
                while i < burst.count {
                    let n = Int.random(in: 1...(burst.count - i), using: &rng)
                    events += f.ingest(Array(burst[i..<(i + n)]), at: now)
                    now = now + .milliseconds(Int64.random(in: 0...9, using: &rng))
                    i += n
                }
                now = now + .milliseconds(25)  // the silence between bursts
            }
            events += f.flush(at: now)
            #expect(events == bursts.map { .frame($0) })
        }
    }

    // MARK: - Length prefix with idle resync

    @Test func silenceAbandonsAHalfFrameAndResyncs() throws {
        var f = LengthPrefixedFramer(prefixSize: 2, maxFrameSize: 100, resyncAfterIdle: .milliseconds(20))
        #expect(f.ingest([0, 10, 1, 2, 3], at: at(0)).isEmpty)
        #expect(f.idleDeadline == at(20))
        #expect(f.flush(at: at(19)).isEmpty)
        #expect(f.flush(at: at(20)) == [.dropped(.truncated(expected: 10, received: 3))])
        #expect(f.ingest([0, 2, 7, 8], at: at(30)) == [.frame([7, 8])])
        #expect(f.idleDeadline == nil, "nothing pending, nothing to time out")
        // Half a prefix, then silence.
        #expect(f.ingest([0], at: at(40)).isEmpty)
        #expect(f.ingest([0, 1, 9], at: at(70)) == [.dropped(.truncated(expected: 2, received: 1)), .frame([9])])
    }

    @Test func garbageBetweenLengthPrefixedFramesIsSkippedAfterSilence() throws {
        var rng = SplitMix64(seed: 99)
        for _ in 0..<200 {
            var f = LengthPrefixedFramer(prefixSize: 2, maxFrameSize: 300, resyncAfterIdle: .milliseconds(20))
            let payloads = (0..<4).map { _ in rng.bytes(Int.random(in: 0...50, using: &rng)) }
            var events: [FramerEvent] = []
            var now = at(0)
            for p in payloads {
                // Line noise, then the quiet time a real device leaves between messages.
                events += f.ingest(rng.bytes(Int.random(in: 0...12, using: &rng)), at: now)
                now = now + .milliseconds(25)
                events += f.ingest(try f.encode(p), at: now)
                now = now + .milliseconds(1)
            }
            #expect(isSubsequence(payloads, of: frames(events)), "\(payloads) in \(events)")
        }
    }

    @Test func aSkipOfAHugeClaimEndsOnSilence() {
        var f = LengthPrefixedFramer(prefixSize: 4, maxFrameSize: 64, resyncAfterIdle: .milliseconds(20))
        #expect(
            f.ingest([0x7F, 0xFF, 0xFF, 0xFF, 1, 2, 3], at: at(0)) == [
                .dropped(.frameTooLarge(limit: 64, size: 0x7FFF_FFFF))
            ]
        )
        #expect(f.flush(at: at(20)).isEmpty, "already reported")
        #expect(f.ingest([0, 0, 0, 1, 0x55], at: at(30)) == [.frame([0x55])])
    }
}
