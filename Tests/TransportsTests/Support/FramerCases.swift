import AccessoryTestSupport
import Transports

/// One framer configuration for the shared property tests: how to make it, what payloads it can
/// carry, how to build an oversize frame and garbage for it. Any thread (a value).
struct FramerCase: Sendable, CustomStringConvertible {
    let name: String
    let make: @Sendable () -> any Framer
    /// Smallest payload the framing can carry (SLIP cannot carry an empty one).
    let minPayload: Int
    /// A random payload of at most `limit` bytes that the framing can carry.
    let payload: @Sendable (inout SplitMix64, _ limit: Int) -> [UInt8]
    /// Raw bytes of one frame that is too large (must produce exactly one `.dropped`).
    let oversize: @Sendable () -> [UInt8]
    /// Garbage to put between frames, or nil where the framing cannot resynchronise on its own
    /// (length prefixes resync on silence: tested with time separately).
    let garbage: (@Sendable (inout SplitMix64) -> [UInt8])?

    var description: String { name }
    var maxFrameSize: Int { make().maxFrameSize }

    /// Random bytes drawn mostly from `special`, the bytes that matter to the framing.
    static func biased(_ rng: inout SplitMix64, count: Int, special: [UInt8]) -> [UInt8] {
        (0..<count).map { _ in
            Int.random(in: 0..<3, using: &rng) == 0
                ? UInt8.random(in: 0...255, using: &rng) : special.randomElement(using: &rng)!
        }
    }

    static func randomLength(_ rng: inout SplitMix64, _ lower: Int, _ limit: Int) -> Int {
        // Short payloads most of the time, sometimes up to the limit.
        Int.random(in: 0..<4, using: &rng) == 0
            ? Int.random(in: lower...limit, using: &rng)
            : Int.random(in: lower...Swift.min(limit, lower + 16), using: &rng)
    }

    static let all: [FramerCase] = [
        line(delimiter: Array("\r\n".utf8), max: 64, name: "line CRLF"),
        line(delimiter: Array("\n".utf8), max: 64, name: "line LF"),
        line(delimiter: Array("<END>".utf8), max: 64, name: "line <END>"),
        slip(leadingEnd: true),
        slip(leadingEnd: false),
        cobs(leading: false),
        cobs(leading: true),
        length(1, .big, max: 200),
        length(2, .big, max: 300),
        length(2, .little, max: 300),
        length(4, .big, max: 300),
        length(4, .little, max: 300),
    ]

    static func line(delimiter: [UInt8], max: Int, name: String) -> FramerCase {
        let special = Array(Set(delimiter)) + [0x61, 0x00, 0xFF]
        /// Breaks up any occurrence of the delimiter inside a payload.
        @Sendable func clean(_ p: [UInt8]) -> [UInt8] {
            var p = p
            var i = 0
            while i + delimiter.count <= p.count {
                if Array(p[i..<(i + delimiter.count)]) == delimiter {
                    p[i + delimiter.count - 1] = 0x78
                }
                i += 1
            }
            // (None of the delimiters used overlaps itself, so a payload's tail cannot join the
            // delimiter after it into an earlier match.)
            return p
        }
        return FramerCase(
            name: name,
            make: { LineFramer(delimiter: delimiter, terminator: delimiter, maxFrameSize: max) },
            minPayload: 0,
            payload: { rng, limit in
                clean(biased(&rng, count: randomLength(&rng, 0, limit), special: special))
            },
            oversize: { [UInt8](repeating: 0x61, count: max + 10) + delimiter },
            garbage: { rng in
                clean(biased(&rng, count: Int.random(in: 0...20, using: &rng), special: special)) + delimiter
            }
        )
    }

    static func slip(leadingEnd: Bool) -> FramerCase {
        let special: [UInt8] = [SLIPFramer.end, SLIPFramer.esc, SLIPFramer.escEnd, SLIPFramer.escEsc]
        return FramerCase(
            name: leadingEnd ? "SLIP" : "SLIP without leading END",
            make: { SLIPFramer(maxFrameSize: 64, leadingEnd: leadingEnd) },
            minPayload: 1,
            payload: { rng, limit in biased(&rng, count: randomLength(&rng, 1, limit), special: special) },
            oversize: { [SLIPFramer.end] + [UInt8](repeating: 0x61, count: 74) + [SLIPFramer.end] },
            garbage: { rng in
                let g = biased(&rng, count: Int.random(in: 0...20, using: &rng), special: special)
                return leadingEnd ? g : g + [SLIPFramer.end]
            }
        )
    }

    static func cobs(leading: Bool) -> FramerCase {
        FramerCase(
            name: leading ? "COBS with leading zero" : "COBS",
            make: { COBSFramer(maxFrameSize: 600, leadingDelimiter: leading) },
            minPayload: 0,
            payload: { rng, limit in
                // Long zero-free runs (to cross the 254-byte block boundary) or many zeros.
                let n = randomLength(&rng, 0, limit)
                let zeroEvery = [0, 3, 254, 255, 300].randomElement(using: &rng)!
                return (0..<n).map { i in
                    zeroEvery > 0 && i % zeroEvery == zeroEvery - 1 ? 0 : UInt8.random(in: 1...255, using: &rng)
                }
            },
            oversize: { (try? COBSFramer(maxFrameSize: 1000).encode([UInt8](repeating: 7, count: 700))) ?? [] },
            garbage: { rng in
                let g = biased(&rng, count: Int.random(in: 0...20, using: &rng), special: [0, 1, 0xFF, 5])
                return leading ? g : g + [0]
            }
        )
    }

    static func length(_ size: Int, _ endianness: LengthPrefixedFramer.Endianness, max: Int) -> FramerCase {
        FramerCase(
            name: "length-prefixed \(size) \(endianness)",
            make: { LengthPrefixedFramer(prefixSize: size, endianness: endianness, maxFrameSize: max) },
            minPayload: 0,
            payload: { rng, limit in rng.bytes(randomLength(&rng, 0, limit)) },
            oversize: {
                let claim = max + 10
                var header: [UInt8] = []
                for k in 0..<size {
                    let shift = endianness == .big ? 8 * (size - 1 - k) : 8 * k
                    header.append(UInt8(truncatingIfNeeded: claim >> shift))
                }
                return header + [UInt8](repeating: 0x42, count: claim)
            },
            garbage: nil
        )
    }
}

/// Feeds `chunks` to a fresh framer and collects the events. Any thread.
func decode(_ make: () -> any Framer, _ chunks: [ArraySlice<UInt8>]) -> [FramerEvent] {
    var framer = make()
    var events: [FramerEvent] = []
    for c in chunks { events += framer.ingest(Array(c)) }
    return events
}

/// The frames among `events`.
func frames(_ events: [FramerEvent]) -> [[UInt8]] {
    events.compactMap { if case .frame(let f) = $0 { return f } else { return nil } }
}

/// Whether `needles` appear in `haystack` in order (not necessarily adjacent).
func isSubsequence(_ needles: [[UInt8]], of haystack: [[UInt8]]) -> Bool {
    var i = 0
    for h in haystack where i < needles.count && h == needles[i] { i += 1 }
    return i == needles.count
}
