/// Base64 (RFC 4648 §4, standard alphabet, with padding), strict.
///
/// Decoding rejects: a length that is not a multiple of 4, any character outside the
/// alphabet (including whitespace and line breaks), `=` anywhere but the last one or two
/// positions, and non-zero unused bits in the last character (a non-canonical encoding).
///
/// Threading: stateless. Any thread.
///
/// Public, not package, for one reason: its `@inlinable` members are inlined and specialized in
/// the modules that call them (ControlProtocol's encoders and fast path), which a package
/// declaration cannot be. Keeping them out of line cost about 900 instructions per `transact`.
public enum Base64 {
    /// Appends the encoding of `bytes` to `buffer`.
    package static func encode(_ bytes: UnsafeBufferPointer<UInt8>, into buffer: inout [UInt8]) {
        encode(bytes, to: &buffer)
    }

    /// The encoding of `bytes`, written to any sink a chunk at a time (for an array, through a
    /// stack buffer and one copy: filling the array with zeros first and overwriting them cost
    /// more than the encoding).
    @inlinable
    public static func encode(_ bytes: UnsafeBufferPointer<UInt8>, to sink: inout some JSONSink) {
        guard let base = bytes.baseAddress else { return }
        pairs.withUnsafeBufferPointer { pairs in
            var index = 0
            while index < bytes.count {
                let count = min(bytes.count - index, chunkInput)
                sink.withUnsafeOutput(maxCount: encodedCount(count)) { out in
                    encodeChunk(base + index, count: count, to: out, pairs: pairs.baseAddress!)
                }
                index += count
            }
        }
    }

    /// Encodes `count` bytes at `input` into `out` (room for ``encodedCount(_:)``); returns the
    /// characters written. A function of its own, with its state in locals: as a closure over
    /// the caller's index it kept that index in memory and cost about 10 instructions a byte.
    @usableFromInline @inline(__always)
    static func encodeChunk(
        _ input: UnsafePointer<UInt8>,
        count: Int,
        to out: UnsafeMutablePointer<UInt8>,
        pairs: UnsafePointer<UInt16>
    ) -> Int {
        let raw = UnsafeMutableRawPointer(out)
        var read = 0
        var written = 0
        // Two output characters per lookup: each 12 bits of input name a pair.
        #if _endian(little)
            // Six bytes make eight characters, stored at once (the pairs lie in memory order, so
            // on a little-endian machine the first pair goes in the low bits).
            while read + 6 <= count {
                let first = Int(input[read]) << 16 | Int(input[read + 1]) << 8 | Int(input[read + 2])
                let second = Int(input[read + 3]) << 16 | Int(input[read + 4]) << 8 | Int(input[read + 5])
                let word =
                    UInt64(pairs[first >> 12]) | UInt64(pairs[first & 0xFFF]) << 16
                    | UInt64(pairs[second >> 12]) << 32 | UInt64(pairs[second & 0xFFF]) << 48
                raw.storeBytes(of: word, toByteOffset: written, as: UInt64.self)
                written += 8
                read += 6
            }
        #endif
        while read + 3 <= count {
            let chunk = Int(input[read]) << 16 | Int(input[read + 1]) << 8 | Int(input[read + 2])
            raw.storeBytes(of: pairs[chunk >> 12], toByteOffset: written, as: UInt16.self)
            raw.storeBytes(of: pairs[chunk & 0xFFF], toByteOffset: written + 2, as: UInt16.self)
            written += 4
            read += 3
        }
        let remaining = count - read
        if remaining > 0 {  // only in the last chunk: the others are whole triples
            let table = alphabet.utf8Start
            let second = remaining == 2 ? UInt32(input[read + 1]) : 0
            let chunk = UInt32(input[read]) << 16 | second << 8
            out[written] = table[Int(chunk >> 18)]
            out[written + 1] = table[Int(chunk >> 12 & 0x3F)]
            out[written + 2] = remaining == 2 ? table[Int(chunk >> 6 & 0x3F)] : UInt8(ascii: "=")
            out[written + 3] = UInt8(ascii: "=")
            written += 4
        }
        return written
    }

    /// Characters in the encoding of `count` bytes.
    @inlinable
    public static func encodedCount(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// Input bytes encoded per chunk (a multiple of 3): they make at most 1,024 characters, the
    /// most `withUnsafeTemporaryAllocation` puts on the stack (with 4 KiB it called
    /// `posix_memalign` and `free` for every frame).
    @usableFromInline static let chunkInput = 3 * 256

    @usableFromInline static let alphabet: StaticString =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    /// The two characters for each 12-bit value, as they lie in memory (first character first).
    @usableFromInline static let pairs: [UInt16] = (0..<4096).map { value in
        let table = alphabet.utf8Start
        var pair: UInt16 = 0
        withUnsafeMutableBytes(of: &pair) { bytes in
            bytes[0] = table[value >> 6]
            bytes[1] = table[value & 0x3F]
        }
        return pair
    }

    /// Appends the encoding of `bytes` to `buffer`.
    package static func encode(_ bytes: some Collection<UInt8>, into buffer: inout [UInt8]) {
        if bytes.withContiguousStorageIfAvailable({ encode($0, into: &buffer) }) == nil {
            Array(bytes).withUnsafeBufferPointer { encode($0, into: &buffer) }
        }
    }

    /// The encoding of `bytes` as a string.
    package static func encodedString(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        encode(bytes, into: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes base64 text.
    package static func decode(_ text: String) throws(Base64Error) -> [UInt8] {
        var text = text
        return try text.withUTF8 { decode(buffer: $0) }.get()
    }

    /// Decodes base64 text given as bytes.
    package static func decode(_ text: some Collection<UInt8>) throws(Base64Error) -> [UInt8] {
        let result =
            text.withContiguousStorageIfAvailable { decode(buffer: $0) }
            ?? Array(text).withUnsafeBufferPointer { decode(buffer: $0) }
        return try result.get()
    }

    /// Decodes base64 text given as bytes.
    package static func decode(buffer text: UnsafeBufferPointer<UInt8>) -> Result<[UInt8], Base64Error> {
        let count = text.count
        guard count % 4 == 0 else { return .failure(.invalidLength(count)) }
        if count == 0 { return .success([]) }
        var padding = 0
        if text[count - 1] == UInt8(ascii: "=") {
            padding = text[count - 2] == UInt8(ascii: "=") ? 2 : 1
        }
        var output = [UInt8]()
        output.reserveCapacity(count / 4 * 3 - padding)
        var index = 0
        while index < count {
            var chunk: UInt32 = 0
            for offset in 0..<4 {
                let position = index + offset
                let byte = text[position]
                let value: UInt8
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
                case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a") + 26
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0") + 52
                case UInt8(ascii: "+"): value = 62
                case UInt8(ascii: "/"): value = 63
                case UInt8(ascii: "="):
                    guard position >= count - padding else { return .failure(.misplacedPadding(at: position)) }
                    value = 0
                default:
                    return .failure(.invalidCharacter(byte, at: position))
                }
                chunk = chunk << 6 | UInt32(value)
            }
            output.append(UInt8(truncatingIfNeeded: chunk >> 16))
            if index + 4 < count || padding < 2 { output.append(UInt8(truncatingIfNeeded: chunk >> 8)) }
            if index + 4 < count || padding < 1 { output.append(UInt8(truncatingIfNeeded: chunk)) }
            if index + 4 == count {
                let unusedBits: UInt32 = padding == 2 ? 0xFFFF : padding == 1 ? 0xFF : 0
                if chunk & unusedBits != 0 { return .failure(.nonCanonical(at: count - padding - 1)) }
            }
            index += 4
        }
        return .success(output)
    }
}

/// Why text is not strict base64.
///
/// Threading: a value. Any thread.
package enum Base64Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The length is not a multiple of 4.
    case invalidLength(Int)
    /// A character outside the base64 alphabet, at a zero-based offset.
    case invalidCharacter(UInt8, at: Int)
    /// `=` before the end.
    case misplacedPadding(at: Int)
    /// The last character before the padding has non-zero unused bits.
    case nonCanonical(at: Int)

    package var description: String {
        switch self {
        case .invalidLength(let length):
            return "length \(length) is not a multiple of 4 (is padding '=' missing?)"
        case .invalidCharacter(let byte, let offset):
            let shown =
                byte >= 0x21 && byte < 0x7F
                ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(JSONParseError.hex(byte))"
            return "invalid character \(shown) at offset \(offset)"
        case .misplacedPadding(let offset):
            return "padding '=' at offset \(offset) before the end"
        case .nonCanonical(let offset):
            return "non-canonical encoding: unused bits of the character at offset \(offset) are not zero"
        }
    }
}
