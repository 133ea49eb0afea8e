// libFuzzer target: every framer (line, SLIP, COBS, length-prefixed, idle gap), fed hostile
// bytes in hostile chunks at hostile times.
//
// Input layout: byte 0 picks the framer and its options, byte 1 its frame size limit; the rest
// is records of [chunk length][milliseconds since the previous chunk][chunk bytes].
// Properties checked on every input: no frame exceeds the limit; for the framers that ignore
// time, the events do not depend on how the stream was cut into chunks, and every frame decoded
// encodes to bytes that decode to exactly that frame; for the timed ones, nothing completes
// before the deadline a framer announces, and a flush after it leaves nothing pending. A broken
// property traps, which libFuzzer reports with the input.
//
// Threading: libFuzzer calls the entry point on one thread.
import IOLoop
import Transports

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: start, count: count))
    guard input.count >= 2 else { return 0 }
    let choice = FramerChoice(kind: input[0], limit: input[1])
    let chunks = Chunk.parse(input.dropFirst(2))
    var framer = choice.make()
    var events: [FramerEvent] = []
    for chunk in chunks {
        if let deadline = framer.idleDeadline, chunk.at < deadline {
            precondition(framer.flush(at: chunk.at).isEmpty, "\(choice): flushed before its deadline")
        }
        events += framer.ingest(chunk.bytes, at: chunk.at)
    }
    if let deadline = framer.idleDeadline {
        events += framer.flush(at: deadline)
        precondition(framer.idleDeadline == nil, "\(choice): still pending after the deadline's flush")
    }
    for case .frame(let frame) in events {
        precondition(frame.count <= framer.maxFrameSize, "\(choice): a \(frame.count)-byte frame")
    }
    guard !choice.isTimed else { return 0 }
    // Time plays no part: one chunk gives what many chunks gave.
    var whole = choice.make()
    let together = whole.ingest(chunks.flatMap(\.bytes))
    precondition(together == events, "\(choice): chunking changed the events")
    for case .frame(let frame) in events {
        checkRoundTrip(frame, choice)
    }
    return 0
}

/// A decoded frame, encoded by the same framing, decodes to exactly that frame.
func checkRoundTrip(_ frame: [UInt8], _ choice: FramerChoice) {
    var fresh = choice.make()
    do throws(FramingError) {
        let encoded = try fresh.encode(frame)
        let decoded = fresh.ingest(encoded)
        precondition(decoded == [.frame(frame)], "\(choice): \(frame) round-tripped to \(decoded)")
    } catch {
        preconditionFailure("\(choice): a decoded \(frame.count)-byte frame cannot be encoded: \(error)")
    }
}

/// Which framer, with which options, from the first two input bytes.
struct FramerChoice: CustomStringConvertible {
    let kind: UInt8
    let limit: Int

    init(kind: UInt8, limit: UInt8) {
        self.kind = kind
        self.limit = 1 + Int(limit) * 4
    }

    private var variant: Int { Int(kind) % 8 }
    private var flag: Bool { kind & 0x80 != 0 }

    var isTimed: Bool { variant == 7 || (variant == 6 && flag) }

    func make() -> any Framer {
        switch variant {
        case 0: return LineFramer(delimiter: [0x0A], terminator: [0x0A], maxFrameSize: limit, dropsEmptyLines: flag)
        case 1: return LineFramer(delimiter: [0x0D, 0x0A], terminator: [0x0D, 0x0A], maxFrameSize: limit)
        case 2: return LineFramer(delimiter: Array("<END>".utf8), terminator: Array("<END>".utf8), maxFrameSize: limit)
        case 3: return SLIPFramer(maxFrameSize: limit, leadingEnd: flag)
        case 4: return COBSFramer(maxFrameSize: limit, leadingDelimiter: flag)
        case 5, 6:
            let size = [1, 2, 4][Int(kind >> 4) % 3]
            return LengthPrefixedFramer(
                prefixSize: size,
                endianness: kind & 0x08 != 0 ? .little : .big,
                maxFrameSize: limit,
                resyncAfterIdle: variant == 6 && flag ? .milliseconds(20) : nil
            )
        default: return IdleGapFramer(gap: .milliseconds(Int64(1 + (kind >> 4))), maxFrameSize: limit)
        }
    }

    var description: String { "framer variant \(variant) (kind byte \(kind), limit \(limit))" }
}

/// One delivery of bytes at a time on the loop's clock.
struct Chunk {
    let bytes: [UInt8]
    let at: LoopInstant

    static func parse(_ records: ArraySlice<UInt8>) -> [Chunk] {
        var chunks: [Chunk] = []
        var rest = records
        var now: UInt64 = 1_000_000_000
        while rest.count >= 2 {
            let length = Int(rest[rest.startIndex])
            now += UInt64(rest[rest.startIndex + 1]) * 1_000_000
            rest = rest.dropFirst(2)
            let bytes = Array(rest.prefix(length))
            rest = rest.dropFirst(bytes.count)
            chunks.append(Chunk(bytes: bytes, at: LoopInstant(nanoseconds: now)))
        }
        return chunks
    }
}
