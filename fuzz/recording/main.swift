// libFuzzer target: the recording reader (docs/replay.md), fed hostile file contents in chunks
// as `RecordingFile` reads them.
//
// Properties checked on every input: it either returns a recording or throws an error whose
// line is inside the input (0 only for an empty input); a recording read back is written and
// read again to an equal one (up to line numbers, and `reply_to` of trace files, which are
// attributed by order on both reads); no line longer than the limit is ever accepted.
//
// Threading: libFuzzer calls the entry point on one thread.
import TrafficTrace

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    // A small line limit, so that the fuzzer reaches it.
    let limits = RecordingDecoder.Limits(maxLineBytes: 512, maxEntries: 64, maxDataBytes: 4096)
    var lines = 1
    for byte in bytes where byte == 0x0A { lines += 1 }
    let read: Recording
    do {
        read = try decode(bytes, limits: limits, chunk: 7)
    } catch {
        precondition(
            error.line >= 0 && error.line <= lines,
            "line \(error.line) outside a \(lines)-line input: \(error)"
        )
        precondition(error.line > 0 || count == 0, "an error without a line for a non-empty input: \(error)")
        precondition(!error.message.isEmpty, "an error without a message")
        return 0
    }
    var again: Recording
    do {
        again = try decode(read.encoded(), limits: RecordingDecoder.Limits(), chunk: 4096)
    } catch {
        preconditionFailure("a recording it read does not read back: \(error)")
    }
    var first = read
    for index in first.entries.indices { first.entries[index].line = 0 }
    for index in again.entries.indices { again.entries[index].line = 0 }
    precondition(first == again, "a recording read back differs")
    return 0
}

func decode(_ bytes: [UInt8], limits: RecordingDecoder.Limits, chunk: Int) throws(RecordingError) -> Recording {
    var decoder = RecordingDecoder(limits: limits)
    var pending: [UInt8] = []
    var offset = 0
    while offset < bytes.count {
        let end = min(offset + chunk, bytes.count)
        try RecordingFile.decode(Array(bytes[offset..<end]), pending: &pending, with: &decoder)
        offset = end
    }
    guard pending.isEmpty else { throw RecordingError(line: decoder.currentLine + 1, "truncated") }
    return try decoder.finish()
}
