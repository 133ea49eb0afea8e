import ControlProtocol
import SystemCalls
import Transports

/// Which request took each frame of one traced read, in order (nil: none did, it was
/// unsolicited or discarded).
///
/// Threading: a value. Device loop only.
struct FrameOutcome {
    var takers: [RequestOperation?] = []
}

extension Accessory {
    /// Frames a read while its traffic is traced, and traces it with the request that took its
    /// frames: the queue's own word, frame by frame, on which bytes answer which request
    /// (docs/replay.md). When the frames went to different requests, or some to none (a `RING`
    /// the accessory's `unsolicited` patterns matched, read with the answer), the read is cut
    /// where each frame ends and each piece names its frame's request. Bytes after the last
    /// complete frame of a cut read (the start of one the next read finishes) are named with the
    /// request waiting when the read ends; a read that completes no frame, with the one waiting
    /// when it came.
    ///
    /// Where frames end is found only for a read that must be cut, by framing it again a byte at
    /// a time on a copy of the framer as it was before the read (the framers report payloads,
    /// not where they ended); a read whose frames all went to one request costs one more array
    /// append a frame. Records made while the read is delivered (the next request's frame, sent
    /// as the previous one completes) are traced after it, as they happened after it was read.
    /// Device loop.
    func receiveTraced(_ bytes: [UInt8], reader: FrameReader, tap: TrafficTap) {
        guard let waiting = claimant, waiting.awaitsAnswer else {
            tap.record(.rx, bytes, client: nil, request: nil)
            reader.receive(bytes)
            return
        }
        let now = WallClock.microsecondsSinceEpoch()
        let framerBefore = reader.framer
        tap.hold()
        defer { tap.release() }
        frameOutcome = FrameOutcome()
        reader.receive(bytes)
        let takers = frameOutcome.take()?.takers ?? []
        guard let first = takers.first else {
            return tap.emit(.rx, bytes, client: waiting.origin.clientID, request: waiting.requestID, at: now)
        }
        if takers.allSatisfy({ $0 === first }) {
            return tap.emit(.rx, bytes, client: first?.origin.clientID, request: first?.requestID, at: now)
        }
        var probe = framerBefore
        var events: [FramerEvent] = []
        var start = bytes.startIndex
        var frame = 0
        for index in bytes.indices where frame < takers.count {
            withUnsafeBytes(of: bytes[index]) { probe.ingest($0, at: loop.now, into: &events) }
            let completed = events.reduce(0) { count, event in
                if case .frame = event { return count + 1 }
                return count
            }
            events.removeAll(keepingCapacity: true)
            guard completed > 0 else { continue }
            let taker = takers[frame]
            frame += completed
            tap.emit(
                .rx,
                Array(bytes[start...index]),
                client: taker?.origin.clientID,
                request: taker?.requestID,
                at: now
            )
            start = index + 1
        }
        guard start < bytes.endIndex else { return }
        let last = claimant.flatMap { $0.awaitsAnswer ? $0 : nil }
        tap.emit(.rx, Array(bytes[start...]), client: last?.origin.clientID, request: last?.requestID, at: now)
    }
}
