import Glibc
import SystemCalls

/// Reads a recording file through ``RecordingDecoder``, a chunk at a time: a line longer than
/// the limit is refused as soon as the limit is passed, without reading the rest (a 1 GB line
/// costs 1 MiB of memory), and a last line without its newline is refused as truncated.
///
/// Threading: stateless. Any thread.
package enum RecordingFile {
    package static func read(
        path: String,
        limits: RecordingDecoder.Limits = RecordingDecoder.Limits()
    ) throws(RecordingError) -> Recording {
        let fd: OwnedFD
        do throws(SyscallError) {
            fd = try FileIO.open(path, flags: O_RDONLY | O_CLOEXEC)
        } catch {
            throw RecordingError(line: 0, "cannot open \(path): \(error)")
        }
        var decoder = RecordingDecoder(limits: limits)
        var pending: [UInt8] = []
        while true {
            let chunk: [UInt8]
            do throws(SyscallError) {
                guard let read = try FileIO.read(fd.rawValue, max: 65_536) else { continue }
                chunk = read
            } catch {
                throw RecordingError(line: decoder.currentLine + 1, "cannot read \(path): \(error)")
            }
            if chunk.isEmpty { break }
            try decode(chunk, pending: &pending, with: &decoder)
        }
        guard pending.isEmpty else {
            throw RecordingError(line: decoder.currentLine + 1, "truncated: the last line has no newline")
        }
        return try decoder.finish()
    }

    /// Feeds the complete lines of `pending + chunk` to the decoder and keeps the rest.
    package static func decode(
        _ chunk: [UInt8],
        pending: inout [UInt8],
        with decoder: inout RecordingDecoder
    ) throws(RecordingError) {
        var start = 0
        while let newline = chunk[start...].firstIndex(of: UInt8(ascii: "\n")) {
            if pending.isEmpty {
                try decoder.feed(line: chunk[start..<newline])
            } else {
                pending += chunk[start..<newline]
                try decoder.feed(line: pending)
                pending.removeAll()
            }
            start = newline + 1
        }
        pending += chunk[start...]
        if pending.count > decoder.limits.maxLineBytes {
            throw RecordingError(
                line: decoder.currentLine + 1,
                "longer than \(decoder.limits.maxLineBytes) bytes"
            )
        }
    }
}
