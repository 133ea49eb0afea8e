import ControlProtocol
import SystemCalls
import Transports

/// What became of the frames that one byte of a traced read completed: how many there were,
/// and the request that took one of them as (part of) its answer, if one did.
///
/// Threading: a value. Device loop only.
struct FrameOutcome {
    var completedFrames = 0
    var taker: RequestOperation?
}

extension Accessory {
    /// Frames a read while its traffic is traced, and traces it cut where its frames end, each
    /// piece named with the request that took its frame, or none: the queue's own word, frame by
    /// frame, on which bytes answer which request (docs/replay.md). A `RING` read while a
    /// `transact` waits is unsolicited when the accessory's `unsolicited` patterns said so, even
    /// when the same read also carries the answer; bytes after the frame that completed a
    /// request go to the next one, or to nobody.
    ///
    /// The read is fed to the framer a byte at a time so that each frame's last byte is known
    /// whatever the framing (the framers report payloads, not where they ended). That costs one
    /// framer call a byte, and only while someone traces the accessory and a request waits for
    /// an answer; otherwise the read is traced whole and framed at once. Bytes after the last
    /// complete frame (the start of one the next read finishes) are named with the request
    /// waiting when the read ends. Records made while the read is delivered (the next request's
    /// frame, sent as the previous one completes) are traced after it, as they happened after
    /// it was read. Device loop.
    func receiveTraced(_ bytes: [UInt8], reader: FrameReader, tap: TrafficTap) {
        guard let waiting = claimant, waiting.awaitsAnswer else {
            tap.record(.rx, bytes, client: nil, request: nil)
            reader.receive(bytes)
            return
        }
        let now = WallClock.microsecondsSinceEpoch()
        tap.hold()
        var start = bytes.startIndex
        for index in bytes.indices {
            frameOutcome = FrameOutcome()
            reader.receive([bytes[index]])
            guard let outcome = frameOutcome.take(), outcome.completedFrames > 0 else { continue }
            let taker = outcome.taker
            tap.emit(
                .rx,
                Array(bytes[start...index]),
                client: taker?.origin.clientID,
                request: taker?.requestID,
                at: now
            )
            start = index + 1
        }
        frameOutcome = nil
        if start < bytes.endIndex {
            let waiting = claimant.flatMap { $0.awaitsAnswer ? $0 : nil }
            tap.emit(
                .rx,
                Array(bytes[start...]),
                client: waiting?.origin.clientID,
                request: waiting?.requestID,
                at: now
            )
        }
        tap.release()
    }
}
