import AccessoryTestSupport
import IOLoop
import SystemCalls
import Testing
import Transports

/// FrameReader: framers driven from a loop, with the idle timer armed on the loop.
@Suite struct FrameReaderTests {
    @Test func idleGapFramesAreDeliveredWhenTheSilenceEnds() {
        let loop = EmbeddedLoop()
        let reader = FrameReader(framer: IdleGapFramer(gap: .milliseconds(10)), scheduler: loop)
        var got: [([UInt8], LoopInstant)] = []
        reader.onFrame = { got.append(($0, loop.now)) }
        let start = loop.now
        reader.receive([1, 2])
        loop.advanceTime(by: .milliseconds(5))
        reader.receive([3])
        #expect(loop.nextTimerDeadline == start + .milliseconds(10), "the first deadline stays armed")
        loop.advanceTime(by: .milliseconds(9))  // t = 14: the first timer fired early and re-armed
        #expect(got.isEmpty)
        #expect(loop.nextTimerDeadline == start + .milliseconds(15))
        loop.advanceTime(by: .milliseconds(1))
        #expect(got.map(\.0) == [[1, 2, 3]])
        #expect(got.first?.1 == start + .milliseconds(15))
        #expect(loop.nextTimerDeadline == nil, "no timer while nothing is pending")
    }

    @Test func aSteadyStreamCausesNoTimerChurn() {
        let loop = EmbeddedLoop()
        let reader = FrameReader(framer: IdleGapFramer(gap: .milliseconds(10)), scheduler: loop)
        var frames = 0
        reader.onFrame = { _ in frames += 1 }
        // A byte every millisecond for a second: one frame at the end, and the timer re-armed
        // about once per gap, not once per byte.
        var timersSeen = Set<UInt64>()
        for _ in 0..<1000 {
            reader.receive([0x41])
            if let d = loop.nextTimerDeadline { timersSeen.insert(d.nanoseconds) }
            loop.advanceTime(by: .milliseconds(1))
        }
        #expect(frames == 0)
        #expect(timersSeen.count <= 120, "about one per gap: \(timersSeen.count)")
        loop.advanceTime(by: .milliseconds(10))
        #expect(frames == 1)
    }

    @Test func lengthPrefixedResyncRunsOnTheTimer() {
        let loop = EmbeddedLoop()
        let framer = LengthPrefixedFramer(prefixSize: 1, maxFrameSize: 50, resyncAfterIdle: .milliseconds(20))
        let reader = FrameReader(framer: framer, scheduler: loop)
        var dropped: [FramingError] = []
        var frames: [[UInt8]] = []
        reader.onDropped = { dropped.append($0) }
        reader.onFrame = { frames.append($0) }
        reader.receive([5, 1, 2])
        loop.advanceTime(by: .milliseconds(25))
        #expect(dropped == [.truncated(expected: 5, received: 2)])
        reader.receive([2, 9, 9])
        #expect(frames == [[9, 9]])
        reader.receive([3, 1])
        reader.reset()
        loop.advanceTime(by: .milliseconds(25))
        #expect(dropped.count == 1, "reset drops the partial frame silently")
    }

    @Test func readerAttachedToAChannelSplitsLines() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let pair = try Socket.socketPair()
        let peer = FDBox(pair.second)
        let channel = try StreamChannel(owning: pair.first, kind: .socket, on: loop)
        defer { channel.close() }
        let reader = FrameReader(framer: LineFramer(dropsEmptyLines: true), scheduler: loop)
        reader.attach(to: channel)
        var lines: [String] = []
        reader.onFrame = { lines.append(String(decoding: $0, as: UTF8.self)) }
        try channel.write(try reader.encode(Array("AT".utf8)))
        #expect(drainAvailable(peer.raw) == Array("AT\r".utf8))
        try sendToSocket(peer.raw, Array("\r\nO".utf8))
        #expect(spin(loop) { channel.bytesRead == 3 })
        try sendToSocket(peer.raw, Array("K\r\n\r\nRING\r\n".utf8))
        #expect(spin(loop) { lines.count == 2 })
        #expect(lines == ["OK", "RING"])
    }

    @Test func idleGapFramesOnARealLoop() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let pair = try Socket.socketPair()
        let peer = FDBox(pair.second)
        let channel = try StreamChannel(owning: pair.first, kind: .socket, on: loop)
        defer { channel.close() }
        let reader = FrameReader(framer: IdleGapFramer(gap: .milliseconds(50)), scheduler: loop)
        reader.attach(to: channel)
        var frames: [[UInt8]] = []
        reader.onFrame = { frames.append($0) }
        try sendToSocket(peer.raw, [1, 2, 3])
        spin(loop, for: .milliseconds(5))
        try sendToSocket(peer.raw, [4])
        #expect(spin(loop) { !frames.isEmpty })
        try sendToSocket(peer.raw, [5])
        #expect(spin(loop) { frames.count == 2 })
        #expect(frames == [[1, 2, 3, 4], [5]])
    }
}
