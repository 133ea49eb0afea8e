/// One inbound line with the bytes that ended it, kept together in one array (an echo writes it
/// back as is). Any thread (a value).
struct ReceivedLine: Equatable {
    /// The content followed by the terminator.
    var bytes: [UInt8]
    var terminatorCount: Int

    var content: ArraySlice<UInt8> { bytes.dropLast(terminatorCount) }
    var terminator: ArraySlice<UInt8> { bytes.suffix(terminatorCount) }
}

/// Splits an inbound byte stream into lines by a ``LineTerminator``.
///
/// A line longer than `maxLength` is discarded up to its terminator (counted in
/// `discardedLines`), as a device whose input buffer overflowed would. Input may arrive in any
/// chunking; a terminator split across chunks is recognised (with the `.any` caveat documented on
/// ``LineTerminator/any``).
///
/// Owned by one responder; loop thread only.
struct LineSplitter {
    let terminator: LineTerminator
    let maxLength: Int
    private var buffer: [UInt8] = []
    private var discarding = false
    /// The last byte taken into the current line (kept while discarding, for `\r\n` detection).
    private var lastByte: UInt8?
    /// `.any`: the previous line ended with a `\r` at the end of a chunk; a `\n` next belongs to it.
    private var swallowLF = false
    private(set) var discardedLines = 0

    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A

    init(terminator: LineTerminator, maxLength: Int) {
        precondition(terminator != .none, "a line splitter needs a terminator")
        self.terminator = terminator
        self.maxLength = maxLength
    }

    /// Takes a chunk and returns the lines it completes, in order.
    mutating func feed(_ chunk: ArraySlice<UInt8>) -> [ReceivedLine] {
        var out: [ReceivedLine] = []
        var i = chunk.startIndex
        while i < chunk.endIndex {
            if swallowLF {
                swallowLF = false
                if chunk[i] == Self.lf {
                    i += 1
                    continue
                }
            }
            guard let j = chunk[i...].firstIndex(where: isBoundary) else {
                take(chunk[i...])
                break
            }
            take(chunk[i..<j])
            let byte = chunk[j]
            switch terminator {
            case .lf, .cr:
                finish([byte], into: &out)
                i = j + 1
            case .crlf:
                // The boundary byte is `\n`; it ends a line only right after a `\r`.
                if lastByte == Self.cr {
                    if !discarding { buffer.removeLast() }
                    finish([Self.cr, Self.lf], into: &out)
                } else {
                    take(chunk[j...j])
                }
                i = j + 1
            case .any:
                if byte == Self.lf {
                    finish([Self.lf], into: &out)
                    i = j + 1
                } else if j + 1 < chunk.endIndex {
                    if chunk[j + 1] == Self.lf {
                        finish([Self.cr, Self.lf], into: &out)
                        i = j + 2
                    } else {
                        finish([Self.cr], into: &out)
                        i = j + 1
                    }
                } else {
                    finish([Self.cr], into: &out)
                    swallowLF = true
                    i = j + 1
                }
            case .none:
                preconditionFailure("unreachable")
            }
        }
        return out
    }

    private func isBoundary(_ b: UInt8) -> Bool {
        switch terminator {
        case .lf, .crlf: return b == Self.lf
        case .cr: return b == Self.cr
        case .any: return b == Self.lf || b == Self.cr
        case .none: return false
        }
    }

    private mutating func take(_ bytes: ArraySlice<UInt8>) {
        guard let last = bytes.last else { return }
        lastByte = last
        if discarding { return }
        if buffer.count + bytes.count > maxLength {
            discarding = true
            discardedLines += 1
            buffer.removeAll()
            return
        }
        buffer.append(contentsOf: bytes)
    }

    private mutating func finish(_ terminator: [UInt8], into out: inout [ReceivedLine]) {
        if discarding {
            discarding = false
        } else {
            var line = [UInt8]()
            line.reserveCapacity(buffer.count + terminator.count)
            line += buffer
            line += terminator
            out.append(ReceivedLine(bytes: line, terminatorCount: terminator.count))
        }
        buffer.removeAll(keepingCapacity: true)
        lastByte = nil
    }
}
