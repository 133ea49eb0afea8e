import IOLoop
import Testing
import Transports

/// The line framer looks for its delimiter eight bytes at a time; these put the delimiter (and a
/// lone first byte of it) at every offset around the word edges.
@Suite("Line framer: the delimiter at every offset")
struct LineFramerScanTests {
    let now = LoopInstant(nanoseconds: 1_000_000_000)

    @Test("lines of 0 to 33 bytes back to back, whole and split anywhere", arguments: ["\n", "\r\n", "<END>"])
    func everyOffset(delimiter text: String) {
        let delimiter = Array(text.utf8)
        for length in 0...33 {
            // A line with the delimiter's first byte alone at every position (where it cannot be
            // mistaken for the whole delimiter), then one of the next length.
            for at in 0...length where delimiter.count > 1 || at == length {
                var line = Array(repeating: UInt8(ascii: "x"), count: length)
                if delimiter.count > 1 && at < length { line[at] = delimiter[0] }
                let next = Array(repeating: UInt8(ascii: "y"), count: (length * 7) % 34)
                let stream = line + delimiter + next + delimiter + Array("tail".utf8)
                for split in [stream.count, at, stream.count / 2] {
                    var framer = LineFramer(delimiter: delimiter, maxFrameSize: 64)
                    let events =
                        framer.ingest(Array(stream[..<split]), at: now)
                        + framer.ingest(Array(stream[split...]), at: now)
                    #expect(
                        events == [.frame(line), .frame(next)],
                        "\(text.debugDescription) \(length)/\(at)/\(split)"
                    )
                }
            }
        }
    }

    @Test("a payload appended to a kept buffer is the payload and the terminator, as encode returns it")
    func encodeAppending() throws {
        let framer = LineFramer(delimiter: Array("\r\n".utf8), terminator: Array("\r".utf8), maxFrameSize: 8)
        var output = Array("kept".utf8)
        try framer.encode(Array("AT".utf8), appendingTo: &output)
        #expect(output == Array("keptAT\r".utf8))
        #expect(try framer.encode(Array("AT".utf8)) == Array("AT\r".utf8))
        #expect(throws: FramingError.payloadTooLarge(limit: 8, size: 9)) {
            try framer.encode(Array("123456789".utf8), appendingTo: &output)
        }
        #expect(output == Array("keptAT\r".utf8), "a refused payload appends nothing")
    }
}
